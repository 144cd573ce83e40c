# The two-level test (analyze/assess/launch_test.R, SPEC 7.6): the run is
# the unit that repeats. Its reference implementations (t.test on the run
# means, the one-way ANOVA of lm), its error when launches differ
# (bench/launches/simulate.R, the simulation docs/analyze.md tabulates),
# the A/A check that sees a launch effect, launch pairs across parameter
# sets, the unpaired tests' interval (shift_interval.R) and the plan of
# repetitions (plan_repetitions.R).

source(file.path(nbh_root, "bench", "launches", "simulate.R"))

test_that("launch_test is t.test over the run means and lm's ANOVA, with unequal rounds per run", {
  set.seed(21)
  rounds <- c(3L, 5L, 2L, 4L, 6L)
  run <- rep(seq_along(rounds), rounds)
  d <- 0.04 + rnorm(length(rounds), 0, 0.03)[run] + rnorm(length(run), 0, 0.02)
  s <- launch_test(list(test = rep(1L, length(d)), run = run, value = d))
  e <- tapply(d, run, mean)
  ref <- t.test(e, alternative = "greater")
  expect_equal(s$runs, 5L)
  expect_equal(s$units, length(d))
  expect_equal(s$df, 4L)
  expect_equal(s$estimate, mean(e))
  expect_equal(s$p_greater, ref$p.value)
  expect_equal(s$p_less, t.test(e, alternative = "less")$p.value)
  expect_equal(c(s$ci_low, s$ci_high), as.numeric(t.test(e)$conf.int))
  fit <- anova(lm(d ~ factor(run)))
  msw <- fit[["Mean Sq"]][2]
  msb <- fit[["Mean Sq"]][1]
  n <- length(d)
  n0 <- (n - sum(rounds^2) / n) / (length(rounds) - 1)
  expect_equal(s$var_round, msw)
  expect_equal(s$var_launch, max(0, (msb - msw) / n0))
})

test_that("tests without units, with one run, with identical runs", {
  s <- launch_test(list(test = c(2L, 2L, 3L, 3L, 3L, 3L), run = c(1L, 1L, 1L, 1L, 2L, 2L),
                        value = c(0.1, 0.2, 0.05, 0.05, 0.05, 0.05)), n_tests = 3L)
  expect_equal(s$units, c(0L, 2L, 4L))
  expect_true(is.na(s$p_greater[1]))
  expect_equal(s$p_greater[2], 1)   # one run: no degrees of freedom, no decision
  expect_true(is.na(s$ci_high[2]))
  expect_equal(s$p_greater[3], 0)   # two runs that agree exactly
  expect_equal(c(s$ci_low[3], s$ci_high[3]), c(0.05, 0.05))
})

test_that("by simulation: the interval holds its level when launches differ; the pooled test's does not", {
  set.seed(34)
  launches <- simulate_design(runs = 10L, rounds = 5L, sd_launch = 0.05, sd_round = 0.05, ratio = 1, tests = 600L)
  # the two-level test: 95 % nominal (binomial sd of 600 tests: 0.9 %)
  expect_gt(launches$paired_coverage, 0.92)
  expect_lt(launches$paired_coverage, 0.98)
  expect_lte(launches$paired_violated, 0.005)
  # the pooled test of the rounds (the method before 2026-11-29): 72-75 %, and false violations
  expect_lt(launches$rounds_coverage, 0.85)
  expect_gt(launches$rounds_violated, 0.005)
  none <- simulate_design(runs = 10L, rounds = 5L, sd_launch = 0, sd_round = 0.05, ratio = 1, tests = 600L)
  expect_gt(none$paired_coverage, 0.92)
  expect_gt(none$rounds_coverage, 0.92)
  # false holds at a true ratio of 1.06 with hold 1.05: at most 2.5 % nominal
  above <- simulate_design(runs = 10L, rounds = 5L, sd_launch = 0.05, sd_round = 0.05, ratio = 1.06, tests = 600L)
  expect_lte(above$paired_holds, 0.035)
  expect_gt(above$rounds_holds, above$paired_holds)
  # heavy-tailed rounds (t with 3 degrees of freedom)
  heavy <- simulate_design(runs = 10L, rounds = 5L, sd_launch = 0.02, sd_round = 0.05, ratio = 1, tests = 600L,
                           tails = "t3", methods = "paired")
  expect_gt(heavy$paired_coverage, 0.92)
})

test_that("an archive with a launch effect: intervals hold the true ratio, and the A/A check fails only the pooled test", {
  experiments <- synthetic_experiments("small", nrep = 20L)
  originals <- experiments[ndim == 2L & nfin == 0L]
  twins <- copy(originals)[, `:=`(id = max(experiments$id) + .I, twin = 1L)]
  twins[, twin_of := originals$id]
  experiments[, `:=`(twin = 0L, twin_of = NA_integer_)]
  dir <- file.path(tempfile("archive-"), "synthetic-openmpi")
  write_synthetic_archive(dir, rbind(experiments, twins), deployments = "1x4", nrun = 10L, inputs = FALSE,
                          blocks = 5L, phase_sd = 0.3, launch_sd = 0.05, rep_sd = 0.02, outlier_rate = 0,
                          work_column = TRUE, seed = 34L)
  result <- analyze_archives(dir, root = nbh_root)
  tt <- test_table(result)
  real <- tt[tag != "AA"]
  # nothing is planted: every true ratio is 1
  covered <- mean(real$ratio_ci_low <= 1 & 1 <= real$ratio_ci_high)
  expect_gt(covered, 0.9)
  expect_equal(sum(real$violated), 0L)
  expect_gt(median(real$launch_share, na.rm = TRUE), 0.5)   # launch sd 0.05 against rounds of 4 repetitions at 2 %
  s <- aa_summary(tt, 0.001)
  expect_false(aa_status(s) == "fails")
  pooled <- test_table(analyze_archives(dir, root = nbh_root, method = "rounds"))
  expect_lt(mean(pooled[tag != "AA", ratio_ci_low <= 1 & 1 <= ratio_ci_high]), 0.8)
  expect_equal(aa_status(aa_summary(pooled, 0.001)), "fails")
})

test_that("a failing A/A check says which excess fails it, each with its own binomial p", {
  summary_of <- function(tests, small, violated) {
    data.table(tests = tests, small = small, violated = violated, nominal = 0.002, open = tests - violated)
  }
  # The demo of 2026-11-29: one false violation in 12, one p <= 0.05 (as expected).
  one <- summary_of(12L, 1L, 1L)
  expect_equal(aa_status(one), "fails")
  text <- aa_failure_text(one)
  expect_match(text, "^1 of 12 twin tests are violated where chance allows at most 0.2 % \\(binomial p = 0.024\\)$")
  expect_no_match(text, "p <= 0.05")
  # Small p-values alone.
  small <- summary_of(12L, 5L, 0L)
  expect_equal(aa_status(small), "fails")
  expect_match(aa_failure_text(small), "^5 of 12 twin tests have a two-sided p <= 0.05 where 5 % \\(0.6\\) are expected")
  # Both.
  both <- summary_of(12L, 5L, 2L)
  expect_match(aa_failure_text(both), "p <= 0.05 .*, and 2 of 12 twin tests are violated")
})

test_that("sides in interleaved launches are paired by launch; otherwise unpaired and exact", {
  experiments <- synthetic_experiments("small", nrep = 20L)
  dir <- file.path(tempfile("archive-"), "synthetic-openmpi")
  write_synthetic_archive(dir, experiments, deployments = "1x4", nrun = 8L, inputs = FALSE, blocks = 4L,
                          param_sets = c("default", "tuned"), work_column = TRUE, seed = 5L,
                          planted = list(list(where = list(param_set = "tuned", msize = 1024), factor = 1.2)))
  plain <- analyze_archives(dir, root = nbh_root)
  expect_setequal(unique(plain$set_comparison$method), "unpaired")
  runs <- fread(file.path(dir, "runs.csv"))
  runs[, `:=`(interleave = "synthetic-1", slot = run)]
  Sys.chmod(file.path(dir, "runs.csv"), "644")
  fwrite(runs, file.path(dir, "runs.csv"))
  paired <- suppressWarnings(analyze_archives(dir, root = nbh_root))
  cmp <- paired$set_comparison
  expect_setequal(unique(cmp$method), "launches")
  expect_true(all(cmp[!is.na(ratio), df] == 7L))
  # one such test against its reference: the t test of the 8 pairs' log ratios of run medians
  one <- cmp[1]
  m <- paired$medians
  a <- m[cell == one$set_cell][order(run)]
  b <- m[cell == one$ref_cell][order(run)]
  pairs <- data.table(pair = runs$slot[a$run], a = a$median)[data.table(pair = runs$slot[b$run], b = b$median),
                                                                on = "pair", nomatch = NULL]
  expect_equal(nrow(pairs), 8L)
  expect_equal(one$p_slower, t.test(log(pairs$a / pairs$b), alternative = "greater")$p.value)
  planted <- paired$frame$cells[msize == 1024, cell]
  expect_true(all(cmp[set_cell %in% planted, slower]))
  expect_false(any(cmp[!set_cell %in% planted, slower]))
})

test_that("the unpaired interval is Moses's (wilcox.test's), in C and in R; none with too few runs", {
  set.seed(8)
  rows <- rbindlist(lapply(1:30, function(t) {
    n_a <- sample(2:12, 1)
    n_b <- sample(2:12, 1)
    data.table(test = t, value = exp(c(rnorm(n_a, 0.1, 0.2), rnorm(n_b, 0, 0.2))),
               is_x = rep(c(TRUE, FALSE), c(n_a, n_b)))
  }))
  ci <- shift_interval(rows, 30L)
  local({
    call_native <- function(...) NULL   # the R code
    environment(shift_interval) <- environment()
    expect_equal(shift_interval(rows, 30L), ci)
  })
  for (t in 1:30) {
    x <- rows[test == t]
    k <- moses_rank(sum(x$is_x), sum(!x$is_x), 0.95)
    if (k < 1L) {
      expect_true(is.na(ci$ci_low[t]))
      next
    }
    ref <- suppressWarnings(wilcox.test(log(x$value[x$is_x]), log(x$value[!x$is_x]), conf.int = TRUE, exact = TRUE))
    expect_equal(log(c(ci$ci_low[t], ci$ci_high[t])), as.numeric(ref$conf.int), tolerance = 1e-12)
  }
  expect_equal(moses_rank(2L, 2L, 0.95), 0L)
  expect_equal(moses_rank(3L, 3L, 0.95), 0L)
  expect_equal(moses_rank(4L, 4L, 0.95), 1L)
})

test_that("the unpaired interval's selection in C gives the R code's bounds exactly, with many and with only ties", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  set.seed(9)
  draw <- list(function(n) exp(rnorm(n, 0, 0.2)),                        # distinct
               function(n) exp(round(rnorm(n, 0, 0.2), 1)),              # many ties
               function(n) rep(1.5, n),                                  # one value: every difference 0
               function(n) exp(sample(c(0, 0.1), n, TRUE)))              # two values
  rows <- rbindlist(lapply(1:200, function(t) {
    n_a <- sample(c(2:12, 30, 40), 1)
    n_b <- sample(c(2:12, 30, 40), 1)
    f <- draw[[t %% 4 + 1]]
    data.table(test = t, value = c(f(n_a) * 1.05, f(n_b)), is_x = rep(c(TRUE, FALSE), c(n_a, n_b)))
  }))
  in_c <- shift_interval(rows, 200L)
  in_r <- local({
    call_native <- function(...) NULL
    environment(shift_interval) <- environment()
    shift_interval(rows, 200L)
  })
  expect_identical(in_c, in_r)
  expect_gt(sum(!is.na(in_c$ci_low)), 150)
})

test_that("--adjust: an a ~ b test counts twice, the A/A twins are a family of their own", {
  p <- c(0.001, 0.002, 0.003, 0.5)
  reverse <- c(NA, 0.9, NA, 0.4)
  out <- adjust_family(p, reverse, "holm", c(1L, 1L, 1L, 2L))
  expect_equal(out[1:3], p.adjust(c(p[1:3], 0.9), "holm")[1:3])
  expect_equal(out[4], p.adjust(c(0.5, 0.4), "holm")[1])
  expect_equal(adjust_family(p, reverse, "none", rep(1L, 4)), p)
})

test_that("the plan: runs and rounds that reach a target half-width, none where the launches alone are wider", {
  # launches 0.02^2, rounds 0.05^2, 10 runs of 5 rounds
  w <- plan_half_width(0.02^2, 0.05^2, 10L, 5L)
  expect_equal(w, qt(0.975, 9) * sqrt((0.02^2 + 0.05^2 / 5) / 10))
  need <- runs_to_reach(0.02^2, 0.05^2, 5L, log(1.01))
  expect_lte(plan_half_width(0.02^2, 0.05^2, need, 5L), log(1.01))
  expect_gt(plan_half_width(0.02^2, 0.05^2, need - 1L, 5L), log(1.01))
  # at 10 runs the launches alone are +/- 1.43 %: no number of rounds reaches 1 %
  expect_true(is.na(rounds_to_reach(0.02^2, 0.05^2, 10L, log(1.01))))
  k <- rounds_to_reach(0.02^2, 0.05^2, 10L, log(1.02))
  expect_lte(plan_half_width(0.02^2, 0.05^2, 10L, k), log(1.02))
  expect_gt(plan_half_width(0.02^2, 0.05^2, 10L, k - 1L), log(1.02))
  tt <- data.table(guideline_no = 1L, tag = "GL4", guideline = "a <= b", library = "x", param_set = "default",
                   deployment = "1x4", nprocs = 4L, method = "paired", runs_a = 10L, pairs = 50L,
                   var_launch = 0.02^2, var_round = 0.05^2, launch_share = 0.4)
  costs <- data.table(library = "x", param_set = "default", deployment = "1x4", nprocs = 4L, kernel = 5, launch = 2)
  plan <- plan_repetitions(tt, costs, 1.01)
  expect_equal(plan$runs_needed, need)
  expect_true(is.na(plan$rounds_needed))
  expect_match(plan$advice, "^more launches")
  expect_equal(plan$best_rounds, as.integer(round(sqrt(2 * 0.05^2 / (1 * 0.02^2)))))
  expect_equal(plan$target, 0.01)
  again <- replan(plan, 1.02)
  expect_equal(again$target, 0.02)
  expect_equal(again$rounds_needed, k)
})

test_that("few runs a side: the unpaired interval falsely holds at most at its level (the bootstrap's did 4-14 %)", {
  set.seed(35)
  for (runs in 2:4) {
    x <- simulate_design(runs = runs, rounds = 1L, sd_launch = 0.05, sd_round = 0.01, ratio = 1.06, tests = 1000L,
                         methods = "study", sd_phase = 0)
    expect_lte(x$study_holds, 0.035)
  }
})

test_that("method = study in an adaptive campaign compares the runs both sides have", {
  cells <- make_cells(op = c("a", "b"), msize = 1L)
  a <- c(1, 1.01, 0.99, 1.02, 0.98, 1.3, 1.31, 1.29, 1.32, 1.28) * 1e-5
  b <- c(1, 1.01, 0.99, 1.02, 0.98) * 1e-5
  medians <- rbind(data.table(cell = 1L, run = 1:10, median = a), data.table(cell = 2L, run = 1:5, median = b))
  setkeyv(medians, c("cell", "run"))
  g <- guideline(c(op = "a"), c(op = "b"))
  adaptive <- assess_guideline(g, cells, medians, c("op", "msize"), method = "study", shared_only = TRUE)
  expect_equal(c(adaptive$runs_a, adaptive$runs_b), c(5L, 5L))
  expect_equal(adaptive$ratio, 1)
  fixed <- assess_guideline(g, cells, medians, c("op", "msize"), method = "study")
  expect_equal(c(fixed$runs_a, fixed$runs_b), c(10L, 5L))
})

test_that("the C routine gives launch_sums's values; rows out of order go to R", {
  set.seed(36)
  tests <- 40L
  rows <- rbindlist(lapply(seq_len(tests), function(t) {
    rounds <- sample(1:6, sample(1:8, 1), TRUE)
    data.table(test = t, run = rep(seq_along(rounds) * 3L, rounds), value = rnorm(sum(rounds), 0.02, 0.05))
  }))
  native <- call_native("nbh_launch_test", rows$test, rows$run, rows$value, tests + 2L)
  expect_false(is.null(native))
  reference <- launch_sums(rows, tests + 2L)
  for (col in c("units", "runs")) expect_identical(native[[col]], reference[[col]])
  for (col in c("estimate", "spread", "ssw", "weighted", "k2", "ssb_raw")) {
    expect_equal(native[[col]], reference[[col]], tolerance = 1e-9, info = col)
  }
  expect_null(call_native("nbh_launch_test", rev(rows$test), rows$run, rows$value, tests))
  shuffled <- rows[c(2L, 1L, 3:.N)]
  if (shuffled$run[1] > shuffled$run[2] && shuffled$test[1] == shuffled$test[2]) {
    expect_null(call_native("nbh_launch_test", shuffled$test, shuffled$run, shuffled$value, tests))
  }
  expect_equal(launch_test(shuffled, tests)[, !"test"], launch_test(rows, tests)[, !"test"], tolerance = 1e-9)
})

test_that("an archive of one run says so, and decides nothing across launches", {
  dir <- file.path(tempfile("archive-"), "synthetic-openmpi")
  write_synthetic_archive(dir, synthetic_experiments("small", nrep = 20L), deployments = "1x4", nrun = 1L,
                          inputs = FALSE, blocks = 10L, work_column = TRUE, seed = 3L,
                          planted = list(list(where = list(op = "neighbor_allgather", msize = 1024), factor = 1.5)))
  said <- character()
  result <- withCallingHandlers(analyze_archives(dir, root = nbh_root), warning = function(w) {
    said <<- c(said, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  tt <- test_table(result)
  expect_true(all(tt$df == 0L))
  expect_true(all(tt$decision == "open"))
  expect_match(said, "tests have one run .* no test across launches is possible", all = FALSE)
})

test_that("t_quantile gives qt's values, each distinct df computed once", {
  df <- c(29L, 1L, 29L, 5L, 1L, 200L, 29L)
  expect_identical(t_quantile(0.975, df), qt(0.975, df))
  expect_identical(t_quantile(0.995, integer()), numeric())
})
