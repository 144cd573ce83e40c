# The two-level test of SPEC 7.6, the default where both sides of a test
# were measured in the same runs (Kalibera & Jones, "Rigorous benchmarking
# in reasonable time", ISMM 2013: levels of repetition).
#
# The unit that repeats is the run (a launch). Whatever one launch fixes --
# the placement of the processes on nodes and cores, routes, a buffer's
# alignment, the library's state, anything drawn once per run -- shifts all
# of its rounds alike, so rounds of one run are no independent
# repetitions. They serve the run's own estimate: with d(r, k) = log(m_a(r,
# k) / m_b(r, k)) the log ratio of the two sides' medians in round k of run
# r (measured seconds apart: paired_test.R),
#   e(r)   = the mean of run r's d(r, k)             (the run's estimate)
#   theta  = the mean of the e(r) over the R runs     (log of the ratio)
#   se     = sd(e) / sqrt(R),  t = theta / se,  df = R - 1
#   p_a    = P(T_df >= t) (a slower), p_b = P(T_df <= t) (b slower)
#   ratio  = exp(theta), interval exp(theta -/+ qt(1 - (1 - level) / 2, df) se).
# Whatever varies between launches is in sd(e): the test keeps its level
# when launches differ (sd 0 to far above the rounds'), and when they do
# not it loses only degrees of freedom (R - 1 instead of one per round).
# What it assumes: the runs are independent launches and the e(r) close to
# normal -- each is a mean of round log ratios of medians (docs/analyze.md
# shows its coverage by simulation, with heavy-tailed rounds too). A wild
# run (one launch far from the others) widens the interval: the test may
# stay open, it is not decided by that run. One run gives no degrees of
# freedom: no p (1), no interval, never decided.
#
# Beside the test, the variance components of the d (one-way random
# effects, ANOVA estimates for unequal rounds per run, Searle et al. 1992,
# 3.6): within runs MSW (the rounds' variance, df N - R), between runs
# MSB, and the launch variance var_launch = max(0, (MSB - MSW) / n0), n0 =
# (N - sum k_r^2 / N) / (R - 1); launch_share = var_launch / (var_launch +
# var_round). They say where the uncertainty comes from and what more of
# each repetition would buy (plan_repetitions).

# The two-level test of many tests at once. d: list(test, run, value), one
# value per unit (a round of a run), test in 1..n_tests. Returns
# data.table(test, units, runs, df, estimate, se, p_greater, p_less,
# ci_low, ci_high, var_launch, var_round, launch_share), a row per test
# (units 0 and NA elsewhere for a test without units).
launch_test <- function(d, n_tests = if (length(d$test)) max(d$test) else 0L, level = 0.95) {
  if (!all(is.finite(d$value))) stop("launch_test: the differences must be finite numbers")
  if (!(length(level) == 1L && is.finite(level) && level > 0 && level < 1)) {
    stop("launch_test: level must be a number between 0 and 1")
  }
  native <- call_native("nbh_launch_test", as.integer(d$test), as.integer(d$run), as.double(d$value),
                        as.integer(n_tests))
  launch_statistics(if (!is.null(native)) setDT(native)[, test := seq_len(n_tests)] else launch_sums(d, n_tests),
                    level)
}

# launch_test's table from the per-test sums (launch_sums) OUT.
launch_statistics <- function(out, level) {
  out[, df := pmax(runs - 1L, 0L)]
  out[, se := fifelse(runs >= 2L, sqrt(pmax(spread, 0) / runs), NA_real_)]
  t_of <- function(estimate, se) fifelse(se > 0, estimate / se, fifelse(estimate > 0, Inf, fifelse(estimate < 0, -Inf, 0)))
  out[, t := fifelse(df >= 1L, t_of(estimate, se), NA_real_)]
  out[, `:=`(p_greater = fifelse(df >= 1L, pt(t, pmax(df, 1L), lower.tail = FALSE), 1),
             p_less = fifelse(df >= 1L, pt(t, pmax(df, 1L)), 1))]
  half <- out[, fifelse(df >= 1L, t_quantile(1 - (1 - level) / 2, pmax(df, 1L)) * se, NA_real_)]
  out[, `:=`(ci_low = estimate - half, ci_high = estimate + half)]
  # Variance components (ANOVA): the rounds' within runs, the launches'.
  out[, dfw := units - runs]
  out[, var_round := fifelse(dfw >= 1L, ssw / pmax(dfw, 1L), NA_real_)]
  out[, msb := fifelse(runs >= 2L, (ssb_raw - units * weighted * weighted) / pmax(runs - 1L, 1L), NA_real_)]
  out[, n0 := fifelse(runs >= 2L, (units - k2 / pmax(units, 1L)) / pmax(runs - 1L, 1L), NA_real_)]
  out[, var_launch := fifelse(runs >= 2L,
                              fifelse(is.na(var_round), pmax(msb, 0) / n0, pmax((msb - var_round) / n0, 0)),
                              NA_real_)]
  out[, launch_share := fifelse(var_launch + fcoalesce(var_round, 0) > 0,
                                var_launch / (var_launch + fcoalesce(var_round, 0)), NA_real_)]
  out[is.na(var_round) & !is.na(var_launch), launch_share := NA_real_]  # one round a run: the two cannot be told apart
  out[units == 0L, `:=`(estimate = NA_real_, p_greater = NA_real_, p_less = NA_real_)]
  out[, .(test, units, runs, df, estimate, se, p_greater, p_less, ci_low, ci_high, var_launch, var_round,
          launch_share)]
}

# qt(p, df), p one number, for a vector df of few distinct values (the
# tests' runs less one), each distinct one computed once: qt takes some
# 4 us a value, 0.07 s for make bench's 17 280 tests. The same values.
t_quantile <- function(p, df) {
  distinct <- unique(df)
  qt(p, distinct)[match(df, distinct)]
}

# The per-test sums of launch_test, in R: the reference of
# analyze/native/launch_test.c, and what runs without it (or for rows not
# ordered by test). data.table(test, units, runs, estimate (the mean of the
# run means), spread (their variance), ssw (the rounds' sum of squares
# about their run means), weighted (the mean of all units), k2 (sum of
# the squared rounds per run), ssb_raw (sum of k e^2)).
launch_sums <- function(d, n_tests) {
  x <- data.table(test = as.integer(d$test), run = as.integer(d$run), value = as.double(d$value))
  x[, square := value * value]
  per_run <- x[, .(k = .N, total = sum(value), squares = sum(square)), keyby = .(test, run)]
  per_run[, `:=`(e = total / k, within = pmax(squares - total * total / k, 0))]
  per_test <- per_run[, .(units = sum(k), runs = .N, estimate = mean(e), spread = var(e),
                          ssw = sum(within), weighted = sum(total) / sum(k), k2 = sum(k * k),
                          ssb_raw = sum(k * e * e)), keyby = test]
  out <- data.table(test = seq_len(n_tests), units = 0L, runs = 0L)
  out[per_test, on = "test", `:=`(units = i.units, runs = i.runs, estimate = i.estimate, spread = i.spread,
                                  ssw = i.ssw, weighted = i.weighted, k2 = i.k2, ssb_raw = i.ssb_raw)]
  out[]
}
