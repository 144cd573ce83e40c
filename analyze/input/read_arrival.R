# What the kernel records about arrival patterns and synchronised starts
# (docs/kernel.md, docs/archive.md), read run by run like the results:
#   results/RUN.ranks.csv        every process's median time from the common
#                                start to its completion and its median delay,
#                                per experiment; for one_late its role (late,
#                                neighbor, other)
#   results/RUN.preparation.csv  with sync = clock: the start skew (as the
#                                clock's model saw it, and measured after
#                                the repetitions with fresh offsets:
#                                measured_skew_seconds, kernels since
#                                issue 26, with its resolution
#                                skew_bound_seconds), the window, the
#                                invalid repetitions
# Only for the (cell, run) pairs that have run medians (the runs the
# assessment trusts); archives made before the kernel wrote them give none.

RANK_COLUMNS <- c(id = "integer", rank = "integer", seconds = "double", delay_seconds = "double",
                  role = "character")
CLOCK_COLUMNS <- c(id = "integer", sync = "character", sync_seconds = "double", window_seconds = "double",
                   offset_spread_seconds = "double", start_skew_seconds = "double", invalid_reps = "double")

# data.table(cell, run, rank, seconds, delay_seconds, role), keyed: per
# run each process's median time (with interleaved rounds the median of
# its rounds' medians); its attribute "rounds" the same per round
# (data.table(cell, run, round, rank, seconds, delay_seconds, role)), for
# the paired tests.
read_ranks <- function(archives, frame, medians) {
  x <- read_run_tables(archives, frame, medians, ".ranks.csv", RANK_COLUMNS, optional = c(round = "integer"))
  if (is.null(x)) {
    none <- data.table(cell = integer(), run = integer(), rank = integer(), seconds = numeric(),
                       delay_seconds = numeric(), role = character())
    setattr(none, "rounds", none[, .(cell, run, round = integer(), rank, seconds, delay_seconds, role)])
    return(none)
  }
  x[is.na(role), role := ""]
  x[is.na(round), round := 1L]
  bad <- x[!is.finite(seconds) | seconds <= 0, .N]
  if (bad) {
    nbh_warning(bad, " per-process time(s) of results/RUN.ranks.csv are empty, not finite or not positive; ",
                "left out")
    x <- x[is.finite(seconds) & seconds > 0]
  }
  rounds <- x[, .(cell, run, round, rank, seconds, delay_seconds, role)]
  setkeyv(rounds, c("cell", "run", "round", "rank"))
  per_run <- if (anyDuplicated(x, by = c("cell", "run", "rank"))) {
    x[, .(seconds = median(seconds), delay_seconds = median(delay_seconds), role = role[1]),
      keyby = .(cell, run, rank)]
  } else {
    x[, .(cell, run, rank, seconds, delay_seconds, role)]
  }
  setkeyv(per_run, c("cell", "run", "rank"))
  set_attribute(per_run, "rounds", rounds)
  per_run[]
}

# data.table(cell, run, sync_seconds, window_seconds, offset_spread_seconds,
# start_skew_seconds, invalid_reps, measured_skew_seconds, skew_bound_seconds)
# of the experiments started with the clock; over a run's rounds the sums
# of the times and counts, the widest spread and window, the median skews
# and resolutions (both NA from kernels before them).
read_clock_starts <- function(archives, frame, medians) {
  x <- read_run_tables(archives, frame, medians, ".preparation.csv", CLOCK_COLUMNS,
                       optional = c(measured_skew_seconds = "double", skew_bound_seconds = "double"))
  if (!is.null(x) && anyDuplicated(x, by = c("cell", "run"))) {
    x <- x[, .(sync = sync[1], sync_seconds = sum(sync_seconds), window_seconds = max(window_seconds),
               offset_spread_seconds = max(offset_spread_seconds), start_skew_seconds = median(start_skew_seconds),
               invalid_reps = sum(invalid_reps), measured_skew_seconds = median(measured_skew_seconds),
               skew_bound_seconds = median(skew_bound_seconds)),
           by = .(cell, run)]
  }
  if (is.null(x)) {
    return(data.table(cell = integer(), run = integer(), sync_seconds = numeric(), window_seconds = numeric(),
                      offset_spread_seconds = numeric(), start_skew_seconds = numeric(), invalid_reps = numeric(),
                      measured_skew_seconds = numeric(), skew_bound_seconds = numeric()))
  }
  x <- x[sync %chin% "clock"][, sync := NULL]
  setkeyv(x, c("cell", "run"))
  x[]
}

# The rows of every run's results/RUN<suffix> with `columns` (name -> type),
# placed in their cells, and the `optional` columns (NA where a file lacks
# them); NULL if no run has such a file with those columns.
read_run_tables <- function(archives, frame, medians, suffix, columns, optional = character()) {
  runs <- frame$runs
  cells <- frame$cells[, .(exp, context, cell)]
  out <- lapply(seq_len(nrow(runs)), function(i) {
    file <- file.path(archives[[runs$archive[i]]]$dir, "results", paste0(runs$run_id[i], suffix))
    if (!file.exists(file) || file.size(file) == 0) return(NULL)
    x <- tryCatch(fread(file, colClasses = "character", na.strings = ""), error = function(e) {
      nbh_warning(file, ": cannot be read (", conditionMessage(e), "); left out")
      NULL
    })
    if (is.null(x) || !nrow(x)) return(NULL)
    if (!all(names(columns) %in% names(x))) return(NULL)   # a kernel before these columns
    for (name in setdiff(names(optional), names(x))) set(x, j = name, value = NA_character_)
    columns <- c(columns, optional)
    x <- x[, names(columns), with = FALSE]
    for (name in names(columns)) set(x, j = name, value = convert_column(x[[name]], columns[[name]], file, name))
    x[frame$ids[archive == runs$archive[i]], on = "id", exp := i.exp]
    x[, `:=`(context = runs$context[i], run = runs$run_key[i])]
    x[cells, on = c("exp", "context"), cell := i.cell]
    x[!is.na(cell)][, c("id", "exp", "context") := NULL]
  })
  x <- rbindlist(out)
  if (!nrow(x)) return(NULL)
  x <- x[medians[, .(cell, run)], on = c("cell", "run"), nomatch = NULL]
  setcolorder(x, c("cell", "run"))
  x
}
