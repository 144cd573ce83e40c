# Reads the measurements of every run, one results file at a time, and
# reduces each to its run medians: Tukey filter and median per experiment
# (SPEC 5, step 1). Memory stays at one run's rows. Returns
# data.table(cell, run, median, n, n_kept): the run's key (runs$run_key),
# the median of the n_kept values the filter kept of the n measured.

reduce_runs <- function(archives, frame) {
  runs <- frame$runs
  out <- vector("list", nrow(runs))
  for (i in seq_len(nrow(runs))) {
    r <- runs[i]
    archive <- archives[[r$archive]]
    file <- file.path(archive$dir, "results", paste0(r$run_id, ".results.csv"))
    x <- read_results(file, r$run_id, archive$experiments)
    m <- run_medians(tukey_filter(x, "seconds", "id"), "seconds", "id")
    setnames(m, "n", "n_kept")
    m[archive$experiments, on = "id", n := i.nrep]
    report_coverage(r, nrow(m), nrow(archive$experiments))
    m[, `:=`(archive = r$archive, run = r$run_key)]
    out[[i]] <- m
  }
  warn_unlisted_results(archives)
  medians <- rbindlist(out)
  medians[frame$ids, on = c("archive", "id"), exp := i.exp]
  medians[runs, on = c(run = "run_key"), context := i.context]
  medians[frame$cells, on = c("exp", "context"), cell := i.cell]
  medians[, .(cell, run, median, n, n_kept)]
}

# One warning for a run whose results do not cover all its experiments, or
# whose state says it did not end well.
report_coverage <- function(run, done, total) {
  if (done == 0L) return(invisible())   # read_results has said why
  if (done < total) {
    nbh_warning("run ", run$run_id, ": results for ", done, " of ", total, " experiments (state ",
                run$state, "); analysed with what it has")
  } else if (!identical(run$state, "done")) {
    nbh_warning("run ", run$run_id, ": state is ", run$state, " although every experiment has results")
  }
}

warn_unlisted_results <- function(archives) {
  for (a in archives) {
    files <- list.files(file.path(a$dir, "results"), pattern = "\\.results\\.csv$")
    extra <- setdiff(sub("\\.results\\.csv$", "", files), a$runs$run_id)
    if (length(extra)) {
      nbh_warning(a$dir, ": results of run(s) ", format_list(extra), " are not in runs.csv; ignored")
    }
  }
}
