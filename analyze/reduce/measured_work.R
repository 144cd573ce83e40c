# The busy work as measured: the kernel times the busy work of every
# repetition on every process and writes the slowest process's beside the
# operation's time (results/RUN.results.csv, column work_seconds; docs/
# kernel.md). Under load the countdown runs 20-30 % longer than calibrated,
# so GL16's right side and the overlap use these times, never the nominal
# work. Returns data.table(cell, run, median, n): per cell that had work and
# run, the median of the work times the Tukey filter kept (as run_medians
# does for the operation's times), only where the run's operation times
# were trusted (a run median in `medians`). Archives made before the kernel
# measured the work (no work_seconds) give no rows.

reduce_work <- function(archives, frame, medians, cores = analysis_cores()) {
  cells <- frame$cells
  with_work <- cells[(!is.na(work_us) & work_us > 0) | (!is.na(work_factor) & work_factor > 0), cell]
  reduce_measured(archives, frame, medians, with_work, "work_seconds", cores)
}

# The arrival delay as measured (column delay_seconds, written when a run's
# input has an arrival pattern): per repetition the slowest process's delay
# from the common start to its call, a wait on the clock that a loaded node
# can stretch far past its nominal d. AR1's right side adds it. The same
# table as reduce_work, for the cells with a delay (arrival_us > 0).
reduce_delay <- function(archives, frame, medians, cores = analysis_cores()) {
  cells <- frame$cells
  reduce_measured(archives, frame, medians, cells[fcoalesce(arrival_us, 0) > 0, cell], "delay_seconds", cores)
}

# Run medians of the results column `column` of the cells `wanted`; the
# table's attribute "rounds" has its round medians (data.table(cell, run,
# round, median): the units of the paired tests, round_units).
reduce_measured <- function(archives, frame, medians, wanted, column, cores = analysis_cores()) {
  none <- data.table(cell = integer(), run = integer(), median = numeric(), n = integer())
  no_rounds <- data.table(cell = integer(), run = integer(), round = integer(), median = numeric())
  setattr(none, "rounds", no_rounds)
  cells <- frame$cells
  trusted <- medians[cell %in% wanted, .(cell, run)]
  if (!nrow(trusted)) return(none)
  trusted[cells, on = "cell", exp := i.exp]
  trusted[frame$runs, on = c(run = "run_key"), `:=`(archive = i.archive, run_id = i.run_id)]
  trusted[frame$ids, on = c("archive", "exp"), `:=`(id = i.id, nrep = i.nrep)]
  out <- map_in_workers(split(trusted, by = "run"), function(r) {
    file <- file.path(archives[[r$archive[1]]]$dir, "results", paste0(r$run_id[1], ".results.csv"))
    x <- read_measured(file, r, column)
    if (is.null(x)) return(NULL)
    m <- run_medians(tukey_filter(x, column, "id"), column, "id")
    m <- m[r, on = "id", `:=`(cell = i.cell, run = i.run)][!is.na(cell), .(cell, run, median, n)]
    rounds <- if (is.null(x$round)) m[, .(cell, run, round = 1L, median)] else {
      k <- round_summary(x$id, x$round, x[[column]])
      data.table(id = k$id, round = k$round, median = k$median)[r, on = "id", nomatch = NULL,
                                                                   .(cell = i.cell, run = i.run, round, median)]
    }
    list(m, rounds)
  }, cores)
  if (!length(out)) return(none)
  rounds <- rbindlist(lapply(out, `[[`, 2L))
  out <- rbindlist(lapply(out, `[[`, 1L))
  if (!nrow(out)) return(none)
  setkeyv(out, c("cell", "run"))
  setkeyv(rounds, c("cell", "run", "round"))
  set_attribute(out, "rounds", rounds[!is.na(median)])
  out[]
}

# The `column` (and round, where the file has it) of the experiments in
# `r` (data.table(id, nrep)) with all their rows (nrep; with rounds, as
# many as the run medians were taken from: at most nrep), or NULL if the
# file has no such column.
read_measured <- function(file, r, column) {
  header <- tryCatch(names(fread(file, nrows = 0L)), error = function(e) character())
  if (!column %in% header) return(NULL)
  rounded <- "round" %in% header
  select <- c("id", if (rounded) "round", column)
  x <- suppressWarnings(fread(file, select = select, fill = TRUE, na.strings = c("", "NA"),
                              colClasses = setNames(c("integer", if (rounded) "integer", "double"), select)))
  x <- x[id %in% r$id & is.finite(x[[column]]) & x[[column]] > 0]
  counts <- x[, .N, by = id][r, on = "id", nomatch = NULL][N == nrep | (rounded & N <= nrep), id]
  x[id %in% counts]
}
