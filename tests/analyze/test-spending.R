# Error spending over the looks (analyze/assess/spending.R) against known
# boundaries: the published Lan-DeMets boundaries of 5 equally spaced looks
# at one-sided alpha 0.025 (Jennison & Turnbull 2000, table 7.6 (two-sided
# 0.05), gsDesign's and ldbounds' examples), and, for the fractions and
# levels of this project's campaigns, those of rpact 3.3.4 (Debian's
# r-cran-rpact): getDesignGroupSequential(kMax, alpha, sided = 1,
# typeOfDesign = "asOF" or "asP", informationRates = t)$criticalValues
# and $stageLevels.

test_that("the published boundaries of 5 equally spaced looks at one-sided 0.025", {
  obf <- spending_bounds((1:5) / 5, 0.025, "obrien-fleming")
  expect_equal(obf$bound, c(4.8769, 3.3570, 2.6803, 2.2898, 2.0310), tolerance = 1e-4)
  pocock <- spending_bounds((1:5) / 5, 0.025, "pocock")
  expect_equal(pocock$bound, c(2.4380, 2.4268, 2.4102, 2.3966, 2.3860), tolerance = 1e-4)
})

test_that("rpact's boundaries for unequal fractions, p_thres 0.001 and fractions that end below 1", {
  expect_equal(spending_bounds(c(10, 15, 20, 25, 30) / 30, 0.001, "obrien-fleming")$bound,
               c(5.580001, 4.508862, 3.869038, 3.436838, 3.121884), tolerance = 1e-6)
  expect_equal(spending_bounds(c(10, 15, 20, 25, 30) / 30, 0.001, "obrien-fleming")$p,
               c(1.20258e-08, 3.25881e-06, 5.46329e-05, 2.94274e-04, 8.98488e-04), tolerance = 1e-5)
  expect_equal(spending_bounds(c(8, 12, 20, 30) / 30, 0.001, "obrien-fleming")$bound,
               c(6.264940, 5.072553, 3.864362, 3.095958), tolerance = 1e-6)
  expect_equal(spending_bounds(c(10, 20, 25) / 30, 0.001, "obrien-fleming")$bound,
               c(5.580001, 3.864060, 3.436592), tolerance = 1e-6)
  expect_equal(spending_bounds(c(8, 12, 20, 30) / 30, 0.025, "pocock")$p,
               c(0.00943022, 0.00668108, 0.00919987, 0.01047130), tolerance = 1e-5)
  expect_equal(spending_bounds(c(10, 20, 25) / 30, 0.025, "pocock")$bound, c(2.279428, 2.294911, 2.383301),
               tolerance = 1e-6)
})

test_that("each look spends what the function allows: the crossings add up to the total at t = 1", {
  b <- spending_bounds(c(0.2, 0.5, 0.55, 1), 0.001, "obrien-fleming")
  expect_equal(b$crossed, spending("obrien-fleming", 0.001, b$t), tolerance = 1e-6)
  expect_equal(b$crossed[4], 0.001, tolerance = 1e-6)
  # The first look has nothing before it: its nominal p is what it may spend.
  expect_equal(b$p[1], spending("obrien-fleming", 0.001, 0.2))
  # One look at full information is the fixed design: nominal p = alpha.
  expect_equal(spending_bounds(1, 0.001, "obrien-fleming")$p, 0.001)
  expect_equal(spending_bounds(1, 0.025, "pocock")$p, 0.025)
  # Later looks get more than alpha / K (the looks are correlated), never more than alpha.
  expect_true(all(diff(b$p) > 0) && b$p[4] < 0.001 && b$p[4] > 0.001 / 2)
})

test_that("the spending functions: nothing at 0, alpha at 1, O'Brien-Fleming-type below Pocock-type early", {
  expect_equal(spending("obrien-fleming", 0.001, c(1e-9, 1)), c(0, 0.001))
  expect_equal(spending("pocock", 0.025, c(0, 1)), c(0, 0.025))
  expect_true(spending("obrien-fleming", 0.025, 0.3) < spending("pocock", 0.025, 0.3))
  expect_equal(spending("pocock", 0.025, 2), 0.025, info = "information beyond the budget spends no more")
  expect_error(spending("bonferroni", 0.025, 0.5), "unknown rule 'bonferroni'")
})

test_that("simulated paths cross the boundaries as often as the total error (Monte Carlo, seeded)", {
  t <- c(8, 12, 20, 30) / 30
  b <- spending_bounds(t, 0.025, "pocock")
  set.seed(20261127)
  n <- 200000L
  steps <- matrix(rnorm(n * length(t)), n) * rep(sqrt(diff(c(0, t))), each = n)
  for (k in seq_along(t)[-1L]) steps[, k] <- steps[, k - 1L] + steps[, k]   # the path at each look
  z <- steps / rep(sqrt(t), each = n)
  crossed <- rowSums(z >= rep(b$bound, each = n)) > 0
  # 0.025 with a standard error of 0.00035
  expect_equal(mean(crossed), 0.025, tolerance = 4 * 0.00035 / 0.025)
})

test_that("nominal levels of many tests: each by its own history, shared where the histories agree", {
  histories <- list(c(10, 15, 20) / 30, 1, c(10, 15, 20) / 30, c(10, 20) / 30)
  p <- nominal_levels(histories, 0.001, "obrien-fleming")
  expect_equal(p[1], p[3])
  expect_equal(p[2], 0.001)
  expect_equal(p[1], spending_bounds(c(10, 15, 20) / 30, 0.001, "obrien-fleming")$p[3])
  expect_equal(p[4], spending_bounds(c(10, 20) / 30, 0.001, "obrien-fleming")$p[2])
  expect_false(isTRUE(all.equal(p[1], p[4])))
})
