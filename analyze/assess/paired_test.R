# The paired tests of SPEC 7.6, where both sides of a test were measured in
# the same runs. A run measures its experiments in interleaved rounds
# (kernel/rounds.c): in every round each experiment gets a share of its
# repetitions, in a new random order. A test's unit is one round of one
# run: its two sides' Tukey medians in that round (round_units) were
# measured seconds apart under the same load, so their log ratio
#   d = log(m_a(run, round) / m_b(run, round))
# carries the difference under test and little of the machine's phases,
# which a comparison of whole launches confounds with it. Two methods:
#   paired  (the default) the two-level test (launch_test.R): each run's
#           mean d is its estimate, and the runs -- the unit that repeats
#           -- give p, ratio and interval (t, R - 1 degrees of freedom);
#   rounds  every unit of every run counted as an independent replicate:
#           the exact one-sided Wilcoxon signed-rank test of the d
#           (signed_rank_test), the ratio exp(Hodges-Lehmann estimate)
#           and the test's interval. Right only where launches do not
#           differ (its p reaches 2^-units, and one run of 12 rounds can
#           decide a test): kept to compare with, and to show what the A/A
#           check sees when a test is too sure of itself (docs/analyze.md).
# Tests whose sides share no unit (sides from different runs) are tested
# across launches instead (assess_guideline: by launch where the launches
# were interleaved, else unpaired).

MAX_PAIRED_UNITS <- 1000L

# Paired tests of many pairs of cells at once. tests: data.table(test,
# a_cell, b_cell); values: data.table(cell, run, median) keyed by (cell,
# run), `run` being the unit (a round of a run; unit_values);
# run_of_unit: the run of each unit; method: "paired" (two-level) or
# "rounds" (pooled). Returns data.table(test, pairs (units both sides
# have), runs (the runs they belong to), df, ratio, ratio_ci_low,
# ratio_ci_high (a over b), p_a (a slower), p_b (b slower), var_launch,
# var_round, launch_share (launch_test; NA for rounds)). rows: cell_rows of
# VALUES (its runs and first), where already known.
paired_tests <- function(tests, values, run_of_unit, level = 0.95, method = "paired", rows = NULL) {
  s <- if (method == "paired") paired_launch_test(tests, values, run_of_unit, level, rows)
  if (is.null(s)) {
    both <- paired_differences(tests, values)
    if (method == "rounds") return(pooled_round_tests(tests, both, run_of_unit, level))
    s <- launch_test(list(test = both$test, run = run_of_unit[both$unit], value = both$d), nrow(tests), level)
  }
  data.table(test = tests$test, pairs = s$units, runs = s$runs, df = s$df, ratio = exp(s$estimate),
             ratio_ci_low = exp(s$ci_low), ratio_ci_high = exp(s$ci_high), p_a = s$p_greater, p_b = s$p_less,
             var_launch = s$var_launch, var_round = s$var_round, launch_share = s$launch_share)
}

# The pooled test of every round unit (method = rounds).
pooled_round_tests <- function(tests, both, run_of_unit, level) {
  # The exact test counts 2^n sign assignments in doubles: at most
  # MAX_PAIRED_UNITS units a test. A test with more (over 100 runs of 10
  # rounds) is tested on its runs: each run's median of its rounds' log
  # ratios, one unit per run.
  many <- both[, .N, by = test][N > MAX_PAIRED_UNITS, test]
  if (length(many)) {
    runs_of_many <- both[test %in% many, .(unit = unit[1], d = median(d)),
                         by = .(test, run = run_of_unit[unit])][, .(test, unit, a = NA_real_, b = NA_real_, d)]
    both <- rbind(both[!test %in% many], runs_of_many)
    setorderv(both, c("test", "unit"))
  }
  s <- signed_rank_test(list(test = both$test, value = both$d), nrow(tests), level)
  runs <- unique(data.table(test = both$test, run = run_of_unit[both$unit]))[, .(runs = .N), keyby = test]
  out <- data.table(test = tests$test, pairs = s$n, runs = 0L, df = NA_integer_, ratio = exp(s$estimate),
                    ratio_ci_low = exp(s$ci_low), ratio_ci_high = exp(s$ci_high), p_a = s$p_greater,
                    p_b = s$p_less, var_launch = NA_real_, var_round = NA_real_, launch_share = NA_real_)
  out[runs, on = "test", runs := i.runs]
  out[, df := fifelse(pairs > 0L, pairs - 1L, 0L)]
  out[]
}

# launch_test of the pairs paired_differences gives, as the C code merges
# them (paired_differences.c: no table of the pairs); NULL where it cannot
# (the pairs' way then: tests numbered 1..n in order, VALUES keyed by cell
# and an integer unit, each cell's units once, run_of_unit in order).
# counted: cell_rows of VALUES, where known (its runs and first).
paired_launch_test <- function(tests, values, run_of_unit, level, counted = NULL) {
  if (!identical(key(values)[1:2], c("cell", "run")) || !is.integer(values$run) ||
      !identical(tests$test, seq_len(nrow(tests)))) {
    return(NULL)
  }
  rows <- counted$runs %||% tabulate(values$cell, max(tests$a_cell, tests$b_cell, values$cell, 0L, na.rm = TRUE))
  first <- as.integer(counted$first %||% cumsum(c(1, rows))[seq_along(rows)])
  sums <- call_native("nbh_paired_launch_sums", values$run, as.double(values$median), first, rows,
                      as.integer(tests$test), as.integer(tests$a_cell), as.integer(tests$b_cell),
                      as.integer(run_of_unit), nrow(tests))
  if (is.null(sums)) return(NULL)
  launch_statistics(setDT(sums)[, test := seq_len(nrow(tests))], level)
}

# The units both cells of each test have: data.table(test, unit, a, b, d =
# log(a / b)) by test and unit. In C (paired_differences.c) where VALUES
# is keyed by cell and unit and the tests come in order, else by joins.
paired_differences <- function(tests, values) {
  if (identical(key(values)[1:2], c("cell", "run")) && is.integer(values$run) &&
      !is.unsorted(tests$test, strictly = TRUE)) {
    rows <- tabulate(values$cell, max(tests$a_cell, tests$b_cell, values$cell, 0L, na.rm = TRUE))
    first <- as.integer(cumsum(c(1, rows))[seq_along(rows)])
    both <- call_native("nbh_paired_differences", values$run, as.double(values$median), first, rows,
                        as.integer(tests$test), as.integer(tests$a_cell), as.integer(tests$b_cell))
    if (!is.null(both)) return(setDT(both)[])
  }
  a <- values[tests[, .(test, cell = a_cell)], on = "cell", nomatch = NULL, allow.cartesian = TRUE,
              .(test = i.test, unit = x.run, a = x.median)]
  b <- values[tests[, .(test, cell = b_cell)], on = "cell", nomatch = NULL, allow.cartesian = TRUE,
              .(test = i.test, unit = x.run, b = x.median)]
  both <- a[b, on = c("test", "unit"), nomatch = NULL]
  setorderv(both, c("test", "unit"))
  both[, d := log(a / b)]
}

# The units of the paired tests from round medians (cell, run, round,
# median; a row whose cell or median is NA left out): list(index
# (unit_index), times (as_unit_runs of them, keyed by cell and unit)). In
# C (round_units.c: two counting sorts), else by unit_index and
# as_unit_runs on the rows sorted by (cell, run, round). stored: more
# round medians, in the value store (reduce_runs's round_units: list(store,
# offset, layout, slot_cell, slot_round, run); only with the C routines,
# which made the store).
round_unit_table <- function(cell, run, round, median, stored = NULL) {
  u <- call_native("nbh_round_units", as.integer(cell), as.integer(run), as.integer(round), as.double(median),
                   stored$store, as.double(stored$offset), as.integer(stored$layout), stored$slot_cell,
                   stored$slot_round, as.integer(stored$run))
  if (is.null(u)) {
    units <- setDT(list(cell = as.integer(cell), run = as.integer(run), round = as.integer(round),
                        median = as.double(median)))[!is.na(cell) & !is.na(median)]
    setkeyv(units, c("cell", "run", "round"))
    index <- unit_index(units)
    return(list(index = index, times = as_unit_runs(units, index)))
  }
  times <- setDT(list(cell = u$cell, run = u$unit, median = u$median))
  setattr(times, "sorted", c("cell", "run"))
  list(index = list(index = setDT(list(run = u$run, round = u$round, unit = seq_along(u$run))), run_of_unit = u$run),
       times = times)
}

# A table of (cell, run, ...) with `run` the unit: the units of the paired
# tests (round_units: cell, run, round, median) keyed by (cell, unit), and
# the unit index that maps them back: list(values, index = data.table(run,
# round, unit), run_of_unit).
unit_index <- function(units) {
  index <- unique(units[, .(run, round)])
  setorderv(index, c("run", "round"))
  index[, unit := .I]
  list(index = index, run_of_unit = index$run)
}

# TABLE (with columns run and round) with run replaced by the unit of
# INDEX (unit_index), keyed as KEY with run first after cell.
as_unit_runs <- function(table, index, key = c("cell", "run")) {
  if (!nrow(table)) return(table[, !"round"])
  units <- index$index
  out <- copy(table)
  if (!all(vapply(list(table$run, table$round, units$run, units$round), is.integer, TRUE)) ||
      anyNA(units$run) || anyNA(units$round) || any(units$run < 1L) || any(units$round < 0L)) {
    out[units, on = c("run", "round"), unit := i.unit]
    out[, run := unit]
    out[, c("unit", "round") := NULL]
    setkeyv(out, key)
    return(out[])
  }
  # Each row's unit from a table by (run, round): what the join above
  # gives, without its cost at millions of rows.
  runs <- max(units$run, 0L)
  lookup <- rep(NA_integer_, runs * (max(units$round, 0L) + 1L))
  lookup[units$run + units$round * runs] <- units$unit
  known <- !is.na(table$run) & !is.na(table$round) & table$run >= 1L & table$run <= runs &
    table$round >= 0L & table$round <= max(units$round, 0L)
  unit <- rep(NA_integer_, nrow(table))
  unit[known] <- lookup[table$run[known] + table$round[known] * runs]
  set(out, j = "run", value = unit)
  out[, round := NULL]
  # A table sorted by (cell, run, round) is sorted by (cell, unit): the
  # units number the (run, round) pairs in that order. No sort of millions
  # of rows again.
  if (identical(key, c("cell", "run")) && identical(key(table), c("cell", "run", "round")) && !anyNA(unit)) {
    setattr(out, "sorted", key)
  } else {
    setkeyv(out, key)
  }
  out[]
}
