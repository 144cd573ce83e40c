# Defects a review of the analyzer's statistics found (issue 25), each a
# test that fails without its fix.

test_that("a computed side's interval is that of the computed b(r), not of its partner's run medians", {
  # AR1-like: side a stable at 100 us; the partner stable at 20 us; the
  # measured delay noisy (60..100 us): b(r) = 20 + delay varies, 20 does not.
  cells <- make_cells(arrival = c("uniform", "none"), arrival_us = c(80, NA), msize = 64L)
  delays <- c(60, 100, 70, 95, 65, 90, 75, 85, 80, 62) * 1e-6
  a <- c(100, 101, 99, 100, 102, 98, 100, 101, 99, 100) * 1e-6
  medians <- make_medians(list(`1` = a, `2` = rep(20e-6, 10) * (1 + (1:10) * 1e-4)))
  setkeyv(medians, c("cell", "run"))
  delay <- data.table(cell = 1L, run = 1:10, median = delays, n = 10L)
  g <- list(a = c(arrival = "uniform"), b = c(arrival = "none"), relation = "<=", varied = "msize",
            text = "a <= plus(b; delay)", where = "test", computed = "plus_delay")
  t <- assess_computed_guideline(g, cells, medians, NULL, c("arrival", "arrival_us", "msize"), delays = delay)
  b <- medians[cell == 2L, median] + delays
  # Moses's order statistics of the 100 log differences (k = 24: P(W <= 23) <= 0.025)
  d <- sort(as.vector(outer(log(a), log(b), "-")))
  k <- moses_rank(10L, 10L, 0.95)
  expect_equal(c(t$ratio_ci_low, t$ratio_ci_high), exp(d[c(k, 101L - k)]), tolerance = 1e-12)
  partner <- ratio_ci(a, medians[cell == 2L, median])   # what the interval was taken from before
  expect_gt(log(t$ratio_ci_high / t$ratio_ci_low), 3 * log(partner[["high"]] / partner[["low"]]))
})

test_that("a value that is no time leaves the other tests of the call alone", {
  cells <- make_cells(op = rep(c("a", "b"), each = 2), msize = rep(1:2, 2))
  medians <- make_medians(list(`1` = c(1, 1.1, NA, 1.2, 1.05, 1.15, 1, 1.1) * 2e-5,
                               `2` = c(1, 1.1, 1.2, 1.3, 1.05, 1.15, 1.25, 1.1) * 2e-5,
                               `3` = c(1, 1.1, 1.2, 1.3, 1.05, 1.15, 1.25, 1.1) * 1e-5,
                               `4` = c(1, 1.1, 1.2, 1.3, 1.05, 1.15, 1.25, 1.1) * 1e-5))
  setkeyv(medians, c("cell", "run"))
  t <- assess_guideline(guideline(c(op = "a"), c(op = "b")), cells, medians, c("op", "msize"))
  expect_false(anyNA(t$p_value))
  expect_equal(t$runs_a, c(7L, 8L))
  expect_equal(t[b_cell == 4L, p_value], rank_sum_test(list(test = rep(1L, 16), value = c(
    medians[cell == 2L, median], medians[cell == 4L, median]), is_x = rep(c(TRUE, FALSE), each = 8)))$p_x_right)
})

test_that("--adjust keeps each guideline's own ratio threshold", {
  tests <- data.table(guideline = 1:2, test = 1:2, a_cell = c(1L, 3L), b_cell = c(2L, 4L), ratio = c(1.05, 1.05),
                      p_value = c(1e-8, 1e-8), violated = c(FALSE, TRUE), ratio_ci_low = 1.04, ratio_ci_high = 1.06)
  # guideline 1 has its own threshold 1.10 (GL16, AR1), guideline 2 the analysis's 1.03
  t <- test_trust(tests, 0.001, c(1.10, 1.03), adjust = "holm")
  expect_equal(t$violated, c(FALSE, TRUE))
})

test_that("AR2 compares each run's processes outside the neighborhood: with reorder they differ by run", {
  cells <- make_cells(arrival = c("one_late", "none"), arrival_us = c(500, NA), msize = 64L)
  # run 1: rank 0 is the other process; run 2: rank 3 (reorder placed it there). The slow process
  # (a synchronising library would make it wait) is the other one of each run.
  ranks <- rbind(
    data.table(cell = 1L, run = 1L, rank = 0:3, seconds = c(30, 522, 520, 522) * 1e-6, role = c("other", "neighbor", "late", "neighbor")),
    data.table(cell = 1L, run = 2L, rank = 0:3, seconds = c(522, 520, 522, 31) * 1e-6, role = c("neighbor", "late", "neighbor", "other")),
    data.table(cell = 2L, run = rep(1:2, each = 4), rank = rep(0:3, 2), seconds = 20e-6, role = ""))
  ranks[, delay_seconds := 0]
  g <- list(a = c(arrival = "one_late"), b = c(arrival = "none"), relation = "<=", varied = "msize",
            text = "others(one_late) <= others(none)", where = "test", computed = "others")
  t <- assess_others_guideline(g, cells, ranks, c("arrival", "arrival_us", "msize"))
  # a(r) are the others' times, 30 and 31 us, against 20 + 250 (d/2): the union of ranks 0 and 3
  # over both runs would take 522 in each run instead
  expect_equal(t$median_a, median(c(30, 31)) * 1e-6)
})

test_that("the unpaired test compares the runs both sides have; the study's every run of each", {
  cells <- make_cells(op = c("a", "b"), msize = 1L)
  # runs 1-5 both sides, equal; runs 6-10 side a only, on a host 1.3x slower (an adaptive round)
  a <- c(1, 1.01, 0.99, 1.02, 0.98, 1.3, 1.31, 1.29, 1.32, 1.28) * 1e-5
  b <- c(1, 1.01, 0.99, 1.02, 0.98) * 1e-5
  medians <- rbind(data.table(cell = 1L, run = 1:10, median = a), data.table(cell = 2L, run = 1:5, median = b))
  setkeyv(medians, c("cell", "run"))
  g <- guideline(c(op = "a"), c(op = "b"))
  shared <- assess_guideline(g, cells, medians, c("op", "msize"), method = "unpaired")
  expect_equal(c(shared$runs_a, shared$runs_b), c(5L, 5L))
  expect_equal(shared$ratio, 1)
  expect_gt(shared$p_value, 0.4)
  study <- assess_guideline(g, cells, medians, c("op", "msize"), method = "study")
  expect_equal(c(study$runs_a, study$runs_b), c(10L, 5L))
  expect_gt(study$ratio, 1.1)
})

test_that("a paired guideline's test whose sides share no run gets its interval from the run medians", {
  # openmpi ~ mpich: paired by default, but the two libraries' cells come
  # from different runs, so the test falls back to the unpaired rank-sum
  # test of the run medians, and its interval is that test's (Moses), of the
  # run medians -- not of the round units
  cells <- make_cells(op = c("a", "b"), msize = 1L)
  rounds <- 5L
  set.seed(9)
  units <- data.table(cell = rep(1:2, each = 8 * rounds), run = seq_len(16 * rounds),
                      median = c(2e-5 * exp(rnorm(8 * rounds, 0, 0.05)), 1e-5 * exp(rnorm(8 * rounds, 0, 0.05))))
  setkeyv(units, c("cell", "run"))
  run_of_unit <- rep(1:16, each = rounds)
  run_medians <- units[, .(median = median(median)), keyby = .(cell, run = run_of_unit[run])]
  t <- assess_guideline(guideline(c(op = "a"), c(op = "b")), cells, units, c("op", "msize"), method = "paired",
                        run_of_unit = run_of_unit, run_medians = run_medians)
  a <- run_medians[cell == 1L, median]
  b <- run_medians[cell == 2L, median]
  right <- exp(as.numeric(wilcox.test(log(a), log(b), conf.int = TRUE, exact = TRUE)$conf.int))
  expect_equal(c(t$ratio_ci_low, t$ratio_ci_high), right, tolerance = 1e-12)
  expect_lt(t$ratio_ci_low, 2)
  expect_gt(t$ratio_ci_high, 2)
})

test_that("a paired guideline's test whose sides share no run is a rank-sum test of run medians, not of round units", {
  # a from runs 1-3, b from runs 4-6 (two libraries), 10 rounds each, a
  # 1.5x slower: 30 round units a side would give p ~ 1e-17 (violated);
  # 3 run medians a side can give no p below 1/20 (C(6, 3)).
  cells <- make_cells(op = c("a", "b"), msize = 1L)
  rounds <- 10L
  set.seed(7)
  unit_times <- function(scale) scale * 1e-5 * exp(rnorm(3 * rounds, 0, 0.02))
  units <- data.table(cell = rep(1:2, each = 3 * rounds), run = seq_len(6 * rounds),
                      median = c(unit_times(1.5), unit_times(1)))
  setkeyv(units, c("cell", "run"))
  run_of_unit <- rep(1:6, each = rounds)
  run_medians <- units[, .(median = median(median)), keyby = .(cell, run = run_of_unit[run])]
  t <- assess_guideline(guideline(c(op = "a"), c(op = "b")), cells, units, c("op", "msize"), method = "paired",
                        run_of_unit = run_of_unit, run_medians = run_medians)
  expect_identical(t$method, "unpaired")
  expect_equal(c(t$runs_a, t$runs_b), c(3L, 3L))
  expect_equal(t$p_value, 1 / 20)
  expect_false(t$violated)
  expect_equal(t$ratio, median(run_medians[cell == 1L, median]) / median(run_medians[cell == 2L, median]))
})
