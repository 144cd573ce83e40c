# Release regression (SPEC 7.3; `analyze NEW... --baseline OLD...`): every
# cell of the new archives against the same cell of the baseline, as the
# guideline `new <= baseline` on the run medians (assess_guideline: paired
# by launch where the releases' launches were interleaved -- one
# interleaved sequence, runs.csv interleave and slot --, else the exact
# one-sided rank-sum test; ratio of medians of run medians, both
# thresholds), and the other way round (`baseline <= new`) for
# improvements; both directions count in --adjust (2 tests a cell):
#   slower         new <= baseline is violated: the new cell is slower;
#   faster         baseline <= new is violated: the new cell is faster;
#   no change      neither (the thresholds are not both reached);
#   cannot detect  neither, and with these runs a side the test cannot
#                  reach p <= p_thres at all (smallest_attainable_p);
#   new only, baseline only   a cell with no partner on the other side;
#   not measured   a pair of which a side has no run medians.
#
# Cell matching: a cell is one parameter combination in one context
# (library, param_set, deployment, nprocs). New and baseline cells are the
# same cell when they agree on every parameter of the key, NA matching NA
# (a parameter that does not apply). The key is every analysis parameter,
# except
#   library    when the new and the baseline archives have no library in
#              common (Open MPI 4.1 -> 5: openmpi5 against openmpi);
#   param_set  when the baseline has one parameter set (every set of the
#              new archives against it: "did this setting make anything
#              slower?"), or none in common with the new archives.
# A parameter left out must have one value in the baseline, or a new cell
# would have several partners. A baseline cell may have several new
# partners (two new libraries, or sets, against one baseline).

# The run parameters that may be left out of the key.
REGRESSION_LOOSE <- c("library", "param_set")
REGRESSION_VERDICTS <- c("slower", "faster", "no change", "cannot detect", "not measured", "new only",
                         "baseline only")

# The key of the matching: list(key = parameters, left_out = parameters).
regression_key <- function(new_cells, old_cells, params) {
  left_out <- character()
  for (p in REGRESSION_LOOSE) {
    new_values <- unique(new_cells[[p]])
    old_values <- unique(old_cells[[p]])
    shared <- length(intersect(new_values, old_values)) > 0L
    # A baseline's one parameter set stands for all; kept where that changes nothing.
    one_set <- p == "param_set" && length(old_values) == 1L && !all(new_values %in% old_values)
    if (shared && !one_set) next
    if (length(old_values) > 1L) {
      input_error("--baseline: the baseline has ", p, " ", format_list(old_values, 4L), " and the new archives ",
                  format_list(new_values, 4L), "; with no ", p, " in common the baseline must have one ",
                  "(analyze each against its own baseline)")
    }
    left_out <- c(left_out, p)
  }
  list(key = setdiff(params, left_out), left_out = left_out)
}

# Pairs the new cells with the baseline cells on the key (NA matches NA).
# Returns list(pairs = data.table(new_cell, old_cell), new_only, old_only
# (cell ids without a partner)).
match_regression_cells <- function(new_cells, old_cells, key) {
  x <- new_cells[, c("cell", key), with = FALSE]
  y <- old_cells[, c("cell", key), with = FALSE]
  pairs <- x[y, on = key, nomatch = NULL, allow.cartesian = TRUE, .(new_cell = x.cell, old_cell = i.cell)]
  dup <- pairs$new_cell[duplicated(pairs$new_cell)]
  if (length(dup)) {
    input_error("--baseline: cell ", describe_cell(new_cells, dup[1], key), " matches ",
                sum(pairs$new_cell == dup[1]), " baseline cells; give one archive per library and parameter set")
  }
  setorder(pairs, new_cell)
  list(pairs = pairs, new_only = setdiff(new_cells$cell, pairs$new_cell),
       old_only = setdiff(old_cells$cell, pairs$old_cell))
}

# The campaign of each archive (archive.json), NA where unknown.
archive_campaign <- function(archive) {
  campaign <- archive$info$campaign
  if (is.null(campaign) || !length(campaign)) NA_character_ else as.character(campaign[[1]])
}

# Stops unless the new and baseline archives come from the same campaign.
check_same_campaign <- function(new, old) {
  campaigns <- function(archives) unique(na.omit(vapply(archives, archive_campaign, "")))
  a <- campaigns(new)
  b <- campaigns(old)
  if (length(a) && length(b) && !length(intersect(a, b))) {
    input_error("--baseline: the baseline is of campaign ", format_list(b, 3L), ", the new archives of ",
                format_list(a, 3L), "; a regression compares two measurements of the same campaign")
  }
}

# The statistics of the matched pairs: new cells and baseline cells in one
# table (baseline cells numbered after the new ones) so that
# assess_guideline tests them as the guideline `new <= baseline`.
# Returns one row per pair: new_cell, old_cell, runs_new, runs_old,
# median_new, median_old (seconds), ratio, ratio_ci_low, ratio_ci_high,
# p_slower, p_faster (one-sided p-values, adjusted by `adjust` over the
# tested pairs), min_p (the smallest p the test can reach, adjusted as the
# verdict is), method (`launches`: paired by launch; `unpaired`: the exact
# rank-sum test), pairs and df (the pairs of launches and the t test's
# degrees of freedom; NA unpaired), verdict.
regression_tests <- function(pairs, new_cells, old_cells, new_medians, old_medians, key, p_thres = 0.001,
                             v_thres = 1.03, adjust = "none", ci_level = 0.95, launch_pairs = NULL,
                             run_offset = max(c(0L, new_medians$run))) {
  offset <- max(c(0L, new_cells$cell))
  cells <- rbind(new_cells[, c("cell", key), with = FALSE],
                 old_cells[, c("cell", key), with = FALSE][, cell := cell + offset])
  # The baseline's runs are other launches: numbered after the new ones.
  medians <- rbind(new_medians[, .(cell, run, median)],
                   old_medians[, .(cell = cell + offset, run = run + run_offset, median)])
  setkeyv(medians, c("cell", "run"))
  runs <- tabulate(medians$cell, max(c(0L, cells$cell)))
  out <- copy(pairs)[, `:=`(runs_new = runs[new_cell], runs_old = runs[old_cell + offset])]
  measured <- out[runs_new > 0L & runs_old > 0L, .(a_cell = new_cell, b_cell = old_cell + offset)]
  guideline <- list(a = list(), b = list(), relation = "<=", varied = "msize", text = "new <= baseline",
                    where = "--baseline")
  slower <- assess_guideline(guideline, cells, medians, key, p_thres, v_thres, pairs = measured,
                             method = "unpaired", level = ci_level, launch_pairs = launch_pairs)
  back <- list(a = list(), b = list(), relation = "<=", varied = "msize", text = "baseline <= new",
               where = "--baseline")
  faster <- assess_guideline(back, cells, medians, key, p_thres, v_thres,
                             pairs = measured[, .(a_cell = b_cell, b_cell = a_cell)], method = "unpaired",
                             level = ci_level, launch_pairs = launch_pairs)
  slower[faster, on = c(a_cell = "b_cell", b_cell = "a_cell"), p_faster := i.p_value]
  slower[, old_cell := b_cell - offset]
  # Each pair is two tests (slower, faster): both count in the adjustment.
  both <- adjust_p(c(slower$p_value, slower$p_faster), adjust)
  n <- nrow(slower)
  reach <- smallest_adjusted_p(smallest_attainable_p(slower), adjust, 2L * n)
  slower[, `:=`(p_slower = both[seq_len(n)], p_faster = both[n + seq_len(n)], min_p = reach)]
  out[slower, on = c(new_cell = "a_cell"), `:=`(
    median_new = i.median_a, median_old = i.median_b, ratio = i.ratio, ratio_ci_low = i.ratio_ci_low,
    ratio_ci_high = i.ratio_ci_high, p_slower = i.p_slower, p_faster = i.p_faster, min_p = i.min_p,
    method = i.method, pairs = i.pairs, df = i.df)]
  untested <- c(setNames(rep(list(NA_real_), 8L), c("median_new", "median_old", "ratio", "ratio_ci_low",
                                                      "ratio_ci_high", "p_slower", "p_faster", "min_p")),
                list(method = NA_character_, pairs = NA_integer_, df = NA_integer_))
  for (col in setdiff(names(untested), names(out))) set(out, j = col, value = untested[[col]])
  out[, verdict := regression_verdict(ratio, p_slower, p_faster, min_p, runs_new, runs_old, p_thres, v_thres)]
  out[]
}

# The verdict of each tested pair (see the top of this file).
regression_verdict <- function(ratio, p_slower, p_faster, min_p, runs_new, runs_old, p_thres, v_thres) {
  slower <- violates(ratio, p_slower, p_thres, v_thres)
  faster <- violates(1 / ratio, p_faster, p_thres, v_thres)
  blind <- min_p > p_thres * (1 + EDGE_TOLERANCE)
  out <- fifelse(slower %in% TRUE, "slower",
         fifelse(faster %in% TRUE, "faster",
         fifelse(blind %in% TRUE, "cannot detect", "no change")))
  out[runs_new == 0L | runs_old == 0L] <- "not measured"
  out
}

# The whole regression of analysed archives (analyze_archives' result)
# against baseline archive directories. Returns list(table (one row per
# cell: regressions.csv), key, left_out, baseline (the archives), counts
# (per verdict), p_thres, v_thres, adjust, ci_level).
regress_archives <- function(result, baseline_dirs, p_thres = result$p_thres, v_thres = result$v_thres,
                             adjust = result$adjust %||% "none", ci_level = result$ci_level %||% 0.95) {
  registry <- result$registry
  params <- result$params
  new_dirs <- vapply(result$archives, `[[`, "", "dir")
  check_distinct_archives(c(new_dirs, baseline_dirs))
  old <- lapply(baseline_dirs, read_archive, registry = registry)
  check_same_campaign(result$archives, old)
  old <- select_runs(old, isTRUE(result$runs$included))$archives
  old <- lapply(old, without_damaged_runs)
  if (!sum(vapply(old, function(a) nrow(a$runs), 0L))) {
    input_error("--baseline: every run of ", format_list(baseline_dirs, 3L), " is left out (see the warnings above)")
  }
  old_frame <- combine_archives(old, params)
  new_cells <- result$frame$cells
  old_cells <- old_frame$cells
  key <- regression_key(new_cells, old_cells, params$name)
  matched <- match_regression_cells(new_cells, old_cells, key$key)
  if (!nrow(matched$pairs)) {
    input_error("--baseline: no cell of ", format_list(new_dirs, 3L), " is in the baseline ",
                format_list(baseline_dirs, 3L), " (the cells differ in ", cells_apart(new_cells, old_cells, key$key),
                ")")
  }
  old_medians <- reduce_runs(old, old_frame)
  # Releases whose launches were interleaved (one interleaved sequence:
  # runs.csv interleave and slot) are compared launch by launch.
  run_offset <- max(c(0L, result$frame$runs$run_key))
  launch_pairs <- launch_pairs_of(rbind(result$frame$runs, copy(old_frame$runs)[, run_key := run_key + run_offset],
                                        fill = TRUE))
  tests <- regression_tests(matched$pairs, new_cells, old_cells, result$medians, old_medians, key$key,
                            p_thres, v_thres, adjust, ci_level, launch_pairs, run_offset)
  table <- regression_table(tests, matched, new_cells, old_cells, key$key, params$name)
  list(table = table, key = key$key, left_out = key$left_out, baseline = old, p_thres = p_thres,
       v_thres = v_thres, adjust = adjust, ci_level = ci_level,
       counts = table[, .N, keyby = .(verdict = factor(verdict, REGRESSION_VERDICTS))])
}

# The key parameters in which the new and the baseline cells never agree.
cells_apart <- function(new_cells, old_cells, key) {
  apart <- key[vapply(key, function(p) !length(intersect(new_cells[[p]], old_cells[[p]])), logical(1))]
  if (length(apart)) paste(apart, collapse = ", ") else "their combinations of parameters"
}

# regressions.csv: one row per cell of either side. The parameter columns
# hold the cell (library and param_set those of the new side), then
# library_baseline and param_set_baseline, the runs, medians (µs), the
# ratio new/baseline with its interval, the p-values, the method (with
# the pairs of launches and degrees of freedom) and the verdict.
regression_table <- function(tests, matched, new_cells, old_cells, key, params) {
  # combine_archives numbers the cells by row: cell i is row i.
  tested <- cbind(new_cells[tests$new_cell, params, with = FALSE],
                  old_cells[tests$old_cell, .(library_baseline = library, param_set_baseline = param_set)],
                  tests[, .(runs_new, runs_baseline = runs_old, median_new_us = median_new * 1e6,
                            median_baseline_us = median_old * 1e6, ratio, ratio_ci_low, ratio_ci_high,
                            p_slower, p_faster, min_p, method, pairs, df, verdict)])
  new_only <- new_cells[matched$new_only, params, with = FALSE][, verdict := "new only"]
  old_only <- old_cells[matched$old_only, params, with = FALSE]
  old_only[, `:=`(library_baseline = library, param_set_baseline = param_set, verdict = "baseline only")]
  old_only[, c("library", "param_set") := NA_character_]
  out <- rbind(tested, new_only, old_only, fill = TRUE)
  out[, verdict_order := match(verdict, REGRESSION_VERDICTS)]
  setorderv(out, c("verdict_order", params), na.last = TRUE)
  out[, verdict_order := NULL]
  setcolorder(out, c(params, "library_baseline", "param_set_baseline"))
  out[]
}

# True if a regression is found.
has_regression <- function(regression) {
  !is.null(regression) && any(regression$table$verdict == "slower")
}

# Whether --fail-on-violation fails: a cell is slower, or a compared cell
# cannot detect a slowdown with its runs (a gate that cannot fail must not
# pass quietly); says why on stderr.
regression_fails <- function(regression) {
  t <- regression$table
  blind <- sum(t$verdict == "cannot detect")
  if (blind) {
    message("nbhbench: ", blind, " compared cell(s) cannot detect a slowdown with these runs (regressions.csv: ",
            "cannot detect); failing (--fail-on-violation)")
  }
  has_regression(regression) || blind > 0L
}

# "regression against the baseline: 2 of 120 cells slower, 1 faster, ...".
regression_summary_line <- function(regression) {
  t <- regression$table
  n <- function(v) sum(t$verdict == v)
  sprintf(paste("regression against the baseline: %d of %d matched cells slower, %d faster, %d cannot detect;",
                "%d new only, %d baseline only (regressions.csv)"),
          n("slower"), sum(!t$verdict %in% c("new only", "baseline only")), n("faster"), n("cannot detect"),
          n("new only"), n("baseline only"))
}
