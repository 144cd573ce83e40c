# The verdict of one guideline (SPEC 5, steps 2-4; 7.6). For every pair of
# cells (a, b) that match_sides pairs and that both have measurements, by
# the guideline's method:
#   paired   (the default where both sides were measured in the same runs)
#            p, ratio and its interval from the paired comparisons of the
#            two sides in every round of every run (paired_test.R): MEDIANS
#            are then the round units (cell, run = unit, median);
#   study    the 2017 study's test of the run medians: one-sided Wilcoxon
#            rank-sum test that a's run medians lie to the right of b's
#            (rank_sum_test: wilcox.test(..., "greater")), ratio
#            v = median(m_a) / median(m_b) (its interval: test_trust);
#   unpaired the same with the exact conditional p whatever the ties (and
#            where a paired test finds no unit both sides have: then on
#            RUN_MEDIANS, the run medians, where given);
#   violated iff v >= v_thres and p <= p_thres.
# For a ~ b the test is also done the other way (b's medians right of a's,
# ratio median(m_b) / median(m_a)) and is violated if either way is; ratio,
# p_value and `slower` then describe the way with the larger ratio (the way
# that is violated, if one is). Tests that differ only in the varied
# parameter form a group; a group is violated if any of its tests is.
#
# Both thresholds are inclusive; a relative tolerance of 1e-12 keeps values
# that equal a threshold up to floating-point rounding on the violated side.
#
# guideline: list(a, b, relation, varied, text, where); cells:
# data.table(cell, <params>); medians: data.table(cell, run, median); pairs:
# what match_sides returns for the guideline, if already known; rows:
# cell_rows of medians with every cell's median (with_cell_medians), if
# already known (the guidelines assessed on one table share them).
# Returns one row per test: test, a_cell, b_cell, group, runs_a, runs_b,
# median_a, median_b (seconds), ratio, p_value, slower ("a" or "b"),
# p_reverse (a ~ b: the p of the other direction; else NA), violated,
# method (paired, rounds, launches -- sides in interleaved launches, paired
# by launch --, unpaired or study), pairs (the units of a test over
# rounds or launch pairs; else NA), df (its degrees of freedom),
# ratio_ci_low and ratio_ci_high (the test's interval), var_launch,
# var_round, launch_share (launch_test.R; NA where not estimated).

EDGE_TOLERANCE <- 1e-12

METHODS <- c("paired", "rounds", "unpaired", "study")

# Whether METHOD tests the round units of runs that measured both sides.
round_method <- function(method) method %in% c("paired", "rounds")

assess_guideline <- function(guideline, cells, medians, params, p_thres = 0.001, v_thres = 1.03,
                             pairs = NULL, method = "study", run_of_unit = NULL, level = 0.95, run_medians = NULL,
                             launch_pairs = NULL, shared_only = FALSE, rows = NULL) {
  what <- sprintf("%s: guideline '%s'", guideline$where %||% "assessment", guideline$text %||% "")
  pairs <- copy(pairs %||% match_sides(cells, guideline$a, guideline$b, params, what))
  if (!nrow(pairs)) return(no_tests())
  rows <- rows %||% cell_rows(medians, max(cells$cell))
  medians <- rows$medians
  runs <- rows$runs
  first <- rows$first
  pairs[, `:=`(runs_a = runs[a_cell], runs_b = runs[b_cell])]
  untested <- pairs[runs_a == 0L | runs_b == 0L, .N]
  if (untested) {
    nbh_warning(what, ": ", untested, " of ", nrow(pairs),
                " comparable cell pairs have no measurements on a side; they are not tested")
  }
  tests <- pairs[runs_a > 0L & runs_b > 0L]
  if (!nrow(tests)) return(no_tests())
  tests[, test := .I]
  values_of <- function(cell) medians$median[sequence(runs[cell], first[cell])]
  cell_median <- rows$cell_median
  if (is.null(cell_median)) {
    needed <- sort(unique(c(tests$a_cell, tests$b_cell)))
    cell_median <- rep(NA_real_, length(runs))
    cell_median[needed] <- medians_of_cells(rows, needed)
  }
  tests[, `:=`(median_a = cell_median[a_cell], median_b = cell_median[b_cell])]
  # Groups: the same cells but for the varied parameter.
  rest <- cells[cell %in% c(tests$a_cell, tests$b_cell)]
  rest[, rest := .GRP, by = setdiff(params, guideline$varied)]
  tests[rest, on = c(a_cell = "cell"), a_rest := i.rest]
  tests[rest, on = c(b_cell = "cell"), b_rest := i.rest]
  tests[, group := .GRP, by = .(a_rest, b_rest)]
  tests[, c("a_rest", "b_rest") := NULL]
  alike <- identical(guideline$relation, "~")
  tests[, `:=`(method = method, pairs = NA_integer_, df = NA_integer_, ratio = median_a / median_b,
               ratio_ci_low = NA_real_, ratio_ci_high = NA_real_, p_value = NA_real_, p_reverse = NA_real_,
               var_launch = NA_real_, var_round = NA_real_, launch_share = NA_real_)]
  if (round_method(method)) {
    pt <- paired_tests(tests[, .(test, a_cell, b_cell)], medians, run_of_unit, level, method, rows)
    paired <- pt$pairs > 0L
    tests[paired, `:=`(pairs = pt$pairs[paired], runs_a = pt$runs[paired], runs_b = pt$runs[paired],
                       df = pt$df[paired], ratio = pt$ratio[paired], ratio_ci_low = pt$ratio_ci_low[paired],
                       ratio_ci_high = pt$ratio_ci_high[paired], p_value = pt$p_a[paired],
                       p_reverse = pt$p_b[paired], var_launch = pt$var_launch[paired],
                       var_round = pt$var_round[paired], launch_share = pt$launch_share[paired])]
    tests[!paired, method := "unpaired"]   # the sides share no round: their run medians are compared
    if (any(!paired) && !is.null(run_medians)) {
      # ... the run medians, not the round units: the rounds of one run are
      # no independent repetitions, and counted as such they would give a
      # p that no interval of the run medians bears out.
      rows <- cell_rows(run_medians, max(cells$cell))
      medians <- rows$medians
      runs <- rows$runs
      first <- rows$first
      sides <- sort(unique(c(tests$a_cell[!paired], tests$b_cell[!paired])))
      cell_median[sides] <- medians_of_cells(rows, sides)
      tests[!paired, `:=`(runs_a = runs[a_cell], runs_b = runs[b_cell], median_a = cell_median[a_cell],
                          median_b = cell_median[b_cell])]
      tests[!paired, ratio := median_a / median_b]
    }
  }
  # Sides measured in different launches (two libraries, two parameter
  # sets) whose launches were interleaved (runs.csv interleave and slot:
  # LAUNCH_PAIRS) are paired by launch: one unit per pair of launches, the
  # log ratio of their run medians, and the two-level test over those
  # pairs (method "launches"). MEDIANS are run medians here (a paired
  # method's fallback has switched to them above).
  across <- which(tests$method == "unpaired" & method != "study")
  if (length(across) && !is.null(launch_pairs) && (!round_method(method) || !is.null(run_medians))) {
    apart <- across[no_shared_run(tests[across], medians)]
    lp <- if (length(apart)) launch_paired_tests(tests[apart], medians, launch_pairs, level)
    if (!is.null(lp)) {
      at <- apart[lp$k]
      tests[at, `:=`(method = "launches", pairs = lp$units, df = lp$df, runs_a = lp$runs, runs_b = lp$runs,
                     median_a = lp$median_a, median_b = lp$median_b, ratio = exp(lp$estimate),
                     ratio_ci_low = exp(lp$ci_low), ratio_ci_high = exp(lp$ci_high), p_value = lp$p_greater,
                     p_reverse = lp$p_less, var_launch = lp$var_launch)]
    }
  }
  # Rank-sum tests of the unpaired tests at once, with the distribution-free
  # interval of the same test (shift_interval.R). `unpaired` compares the
  # runs both sides have where they have some (an adaptive campaign's later
  # rounds may give one side more runs, measured in another phase of the
  # machine; so does `study` in an adaptive campaign: SHARED_ONLY); sides
  # measured in different runs (two libraries, two parameter sets) and the
  # study's test compare every run of each side.
  unpaired <- which(!round_method(tests$method) & tests$method != "launches")
  shared <- if (length(unpaired) && (method == "unpaired" || shared_only)) {
    shared_runs(tests[unpaired], medians, runs, first)
  }
  if (!is.null(shared) && nrow(shared)) {
    sides <- shared[, .(runs = .N, median_a = median(a), median_b = median(b)), keyby = k]
    at <- unpaired[sides$k]
    tests[at, `:=`(runs_a = sides$runs, runs_b = sides$runs, median_a = sides$median_a, median_b = sides$median_b,
                   ratio = sides$median_a / sides$median_b)]
  }
  if (length(unpaired)) {
    u <- tests[unpaired]
    own <- if (is.null(shared)) rep(TRUE, nrow(u)) else !seq_len(nrow(u)) %in% shared$k
    a_runs <- u$runs_a[own]
    b_runs <- u$runs_b[own]
    x <- rbind(data.table(k = rep(which(own), a_runs), value = values_of(u$a_cell[own]), is_x = rep(TRUE, sum(a_runs))),
               data.table(k = rep(which(own), b_runs), value = values_of(u$b_cell[own]), is_x = rep(FALSE, sum(b_runs))),
               if (!is.null(shared)) shared[, .(k = c(k, k), value = c(a, b), is_x = rep(c(TRUE, FALSE), each = .N))])
    rs <- rank_sum_test(list(test = x$k, value = x$value, is_x = x$is_x), length(unpaired), both = alike,
                        ties = if (method == "study") "study" else "exact")
    ci <- shift_interval(list(test = x$k, value = x$value, is_x = x$is_x), length(unpaired), level)
    tests[unpaired, `:=`(p_value = rs$p_x_right, p_reverse = rs$p_y_right, ratio_ci_low = ci$ci_low,
                         ratio_ci_high = ci$ci_high)]
  }
  verdict <- function(ratio, p) violates(ratio, p, p_thres, v_thres)
  tests[, `:=`(slower = "a", violated = verdict(ratio, p_value))]
  if (alike) {
    reverse <- tests[, .(ratio = 1 / ratio, p = p_reverse, low = 1 / ratio_ci_high, high = 1 / ratio_ci_low)]
    reverse[, violated := verdict(ratio, p)]
    flip <- reverse$violated | (!tests$violated & reverse$ratio > tests$ratio)
    p_a <- tests$p_value
    tests[flip, `:=`(ratio = reverse$ratio[flip], p_value = reverse$p[flip], slower = "b",
                     violated = reverse$violated[flip], ratio_ci_low = reverse$low[flip],
                     ratio_ci_high = reverse$high[flip])]
    # The other direction's p: an a ~ b test is two tests, for --adjust
    # and the A/A check's two-sided p.
    tests[, p_reverse := fifelse(flip, p_a, p_reverse)]
  } else {
    tests[, p_reverse := NA_real_]
  }
  setcolorder(tests, c("test", "a_cell", "b_cell", "group", "runs_a", "runs_b", "median_a", "median_b",
                       "ratio", "p_value", "p_reverse", "slower", "violated", "method", "pairs", "df",
                       "ratio_ci_low", "ratio_ci_high", "var_launch", "var_round", "launch_share"))
  tests[]
}

# MEDIANS (cell, run, median) for indexing by cell: list(medians, runs,
# first), the run medians of cell c being rows first[c] .. first[c] +
# runs[c] - 1 of medians, keyed by cell. A value that is no time (a
# per-process time the kernel could not take: AR2's maxima) is no
# measurement: left out here, so that it cannot turn every later test of
# the call into NA.
cell_rows <- function(medians, n_cells) {
  # a finite sum: every value finite (one pass over millions of units, no vector of flags)
  if (!is.finite(sum(medians$median))) medians <- medians[is.finite(median)]
  if (!identical(key(medians)[1], "cell")) medians <- setkeyv(copy(medians), "cell")
  runs <- tabulate(medians$cell, n_cells)
  list(medians = medians, runs = runs, first = cumsum(c(1L, runs))[seq_along(runs)])
}

# ROWS (cell_rows) with cell_median: the median of every cell's values
# (NA for a cell without), for the guidelines that share them.
with_cell_medians <- function(rows) {
  measured <- which(rows$runs > 0L)
  rows$cell_median <- rep(NA_real_, length(rows$runs))
  rows$cell_median[measured] <- medians_of_cells(rows, measured)
  rows
}

# The median of the run medians of each of CELLS (increasing, each with
# some), from ROWS (cell_rows), as stats::median.
medians_of_cells <- function(rows, cells) {
  call_native("nbh_cell_medians", rows$medians$median, as.integer(rows$first), rows$runs, cells) %||%
    rows$medians[cell %in% cells, .(m = median(median)), keyby = cell]$m
}

# The run medians both cells of each test have: data.table(k (the test's
# row in TESTS), run, a, b).
shared_runs <- function(tests, medians, runs = NULL, first = NULL) {
  # Where every test's two cells have the same runs (one campaign, every
  # run measuring every experiment: the common case), the pairs are the
  # cells' rows side by side (MEDIANS keyed by cell and run; RUNS and FIRST
  # each cell's count and first row), without joins.
  if (!is.null(runs) && identical(key(medians)[1:2], c("cell", "run"))) {
    n <- runs[tests$a_cell]
    if (identical(n, runs[tests$b_cell])) {
      at_a <- sequence(n, first[tests$a_cell])
      at_b <- sequence(n, first[tests$b_cell])
      if (identical(medians$run[at_a], medians$run[at_b])) {
        return(data.table(k = rep.int(seq_len(nrow(tests)), n), run = medians$run[at_a], a = medians$median[at_a],
                          b = medians$median[at_b]))
      }
    }
  }
  a <- medians[tests[, .(k = seq_len(.N), cell = a_cell)], on = "cell", nomatch = NULL, allow.cartesian = TRUE,
               .(k = i.k, run = x.run, a = x.median)]
  b <- medians[tests[, .(k = seq_len(.N), cell = b_cell)], on = "cell", nomatch = NULL, allow.cartesian = TRUE,
               .(k = i.k, run = x.run, b = x.median)]
  out <- a[b, on = c("k", "run"), nomatch = NULL]
  setorderv(out, c("k", "run"))
  out[]
}

# The tests of TESTS (rows k) whose sides' launches were interleaved, paired
# by launch: LAUNCH_PAIRS data.table(run, pair) gives each run's pair of
# launches (runs.csv interleave and slot); MEDIANS the run medians (cell,
# run, median). A test needs two pairs at least in which both sides were
# measured. Returns NULL, or data.table(k, units, runs, df, median_a,
# median_b, estimate, ci_low, ci_high, p_greater, p_less, var_launch).
launch_paired_tests <- function(tests, medians, launch_pairs, level) {
  keyed <- medians[launch_pairs, on = "run", nomatch = NULL, .(cell, pair = i.pair, median)]
  if (!nrow(keyed)) return(NULL)
  a <- keyed[data.table(k = seq_len(nrow(tests)), cell = tests$a_cell), on = "cell", nomatch = NULL,
             allow.cartesian = TRUE, .(k = i.k, pair, a = median)]
  b <- keyed[data.table(k = seq_len(nrow(tests)), cell = tests$b_cell), on = "cell", nomatch = NULL,
             allow.cartesian = TRUE, .(k = i.k, pair, b = median)]
  both <- a[b, on = c("k", "pair"), nomatch = NULL]
  if (!nrow(both)) return(NULL)
  both <- both[k %in% both[, .N, by = k][N >= 2L, k]]
  if (!nrow(both)) return(NULL)
  setorderv(both, c("k", "pair"))
  ks <- sort(unique(both$k))
  both[, test := match(k, ks)]
  s <- launch_test(list(test = both$test, run = both$test * 0L + seq_len(nrow(both)), value = log(both$a / both$b)),
                   length(ks), level)
  sides <- both[, .(median_a = median(a), median_b = median(b)), keyby = test]
  data.table(k = ks, units = s$units, runs = s$runs, df = s$df, median_a = sides$median_a, median_b = sides$median_b,
             estimate = s$estimate, ci_low = s$ci_low, ci_high = s$ci_high, p_greater = s$p_greater,
             p_less = s$p_less, var_launch = s$var_launch)
}

# Which of TESTS have no run in which both sides were measured (MEDIANS:
# cell, run, median).
no_shared_run <- function(tests, medians) {
  a <- medians[data.table(k = seq_len(nrow(tests)), cell = tests$a_cell), on = "cell", nomatch = NULL,
               allow.cartesian = TRUE, .(k = i.k, run)]
  b <- medians[data.table(k = seq_len(nrow(tests)), cell = tests$b_cell), on = "cell", nomatch = NULL,
               allow.cartesian = TRUE, .(k = i.k, run)]
  !seq_len(nrow(tests)) %in% a[b, on = c("k", "run"), nomatch = NULL]$k
}

# Violated iff ratio >= v_thres and p <= p_thres, both with the tolerance.
violates <- function(ratio, p, p_thres, v_thres) {
  ratio >= v_thres * (1 - EDGE_TOLERANCE) & p <= p_thres * (1 + EDGE_TOLERANCE)
}

no_tests <- function() {
  data.table(test = integer(), a_cell = integer(), b_cell = integer(), group = integer(), runs_a = integer(),
             runs_b = integer(), median_a = numeric(), median_b = numeric(), ratio = numeric(),
             p_value = numeric(), p_reverse = numeric(), slower = character(), violated = logical(),
             method = character(), pairs = integer(), df = integer(), ratio_ci_low = numeric(), ratio_ci_high = numeric(),
             var_launch = numeric(), var_round = numeric(), launch_share = numeric())
}

`%||%` <- function(a, b) if (is.null(a)) b else a
