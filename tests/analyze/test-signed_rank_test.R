paired <- function(cases) {
  rbindlist(lapply(seq_along(cases), function(i) data.table(test = rep(i, length(cases[[i]])), value = cases[[i]])))
}

# P(V* >= V) and P(V* <= V) over all 2^m signs of the nonzero differences,
# the ranks of |d| (midranks, zeros included) kept: doubled, in integers.
brute_force_signed_rank <- function(d) {
  doubled <- as.integer(2 * rank(abs(d)))
  nonzero <- which(d != 0)
  v <- sum(doubled[d > 0])
  signs <- as.matrix(expand.grid(rep(list(0:1), length(nonzero))))
  all_v <- if (length(nonzero)) as.vector(signs %*% doubled[nonzero]) else 0
  c(mean(all_v >= v), mean(all_v <= v))
}

wilcox_signed <- function(d, alternative, level = 0.95) {
  suppressWarnings(wilcox.test(d, alternative = alternative, exact = TRUE, conf.int = TRUE, conf.level = level))
}

test_that("without ties and zeros: wilcox.test's exact p, V, and its estimate and interval bit for bit", {
  set.seed(11)
  cases <- c(lapply(1:120, function(i) rnorm(sample(1:49, 1), runif(1, -0.5, 0.5))),
             lapply(c(60, 150, 400), function(n) rnorm(n, 0.1)))
  for (level in c(0.95, 0.8, 0.99)) {
    r <- signed_rank_test(paired(cases), length(cases), level)
    greater <- lapply(cases, wilcox_signed, "greater", level)
    two_sided <- lapply(cases, wilcox_signed, "two.sided", level)
    expect_identical(r$V, vapply(greater, function(w) unname(w$statistic), 0))
    expect_equal(r$p_greater, vapply(greater, function(w) w$p.value, 0), tolerance = 1e-12)
    expect_equal(r$p_less, vapply(cases, function(d) wilcox_signed(d, "less")$p.value, 0), tolerance = 1e-12)
    expect_identical(r$estimate, vapply(two_sided, function(w) unname(w$estimate), 0))
    expect_identical(r$ci_low, vapply(two_sided, function(w) w$conf.int[1], 0))
    expect_identical(r$ci_high, vapply(two_sided, function(w) w$conf.int[2], 0))
  }
  expect_identical(r$n, lengths(cases))
  expect_true(all(r$n_zero == 0L))
})

test_that("with ties and zeros: the exact conditional p of all 2^m sign flips (Pratt's ranks)", {
  set.seed(12)
  # Half-integers from -2 to 2: many ties, zeros in most tests, every test of 1..13 pairs.
  cases <- c(lapply(1:300, function(i) sample(-4:4, sample(1:13, 1), replace = TRUE) / 2),
             list(c(0, 0, 0), c(0, 1), c(1, 1, 2, 2, 3), c(-1, 1, -1, 1)))
  r <- signed_rank_test(paired(cases), length(cases))
  expected <- t(vapply(cases, brute_force_signed_rank, c(0, 0)))
  expect_equal(r$p_greater, expected[, 1], tolerance = 1e-14)
  expect_equal(r$p_less, expected[, 2], tolerance = 1e-14)
  expect_identical(r$n_zero, vapply(cases, function(d) sum(d == 0), 0L))
  expect_identical(r$V, vapply(cases, function(d) sum(rank(abs(d))[d > 0]), 0))
})

test_that("with ties and zeros: coin::wilcoxsign_test's exact p (zero.method Pratt)", {
  set.seed(13)
  cases <- c(lapply(1:40, function(i) round(rnorm(sample(5:40, 1), 0.3), 1)),
             lapply(1:5, function(i) c(0, 0, round(rnorm(60, 0.2), 1))))
  r <- signed_rank_test(paired(cases), length(cases))
  coin_p <- function(d, alternative) {
    coin::pvalue(coin::wilcoxsign_test(d ~ numeric(length(d)), distribution = "exact", alternative = alternative))
  }
  expect_equal(r$p_greater, vapply(cases, coin_p, 0, "greater"), tolerance = 1e-10)
  expect_equal(r$p_less, vapply(cases, coin_p, 0, "less"), tolerance = 1e-10)
})

# A few ties among many pairs: one tie of opposite signs, ties at the
# smallest ranks, ties and zeros together.
few_ties <- function(n, kind) {
  d <- rnorm(n, 0.02)
  d[2] <- -d[1]
  if (kind >= 2) d[order(abs(d))[1:3]] <- c(-1, 1, 1) * min(abs(d))
  if (kind >= 3) d[4:6] <- c(0, 0, d[7])
  d
}

test_that("a few ties among many pairs: coin::wilcoxsign_test's exact p", {
  set.seed(16)
  cases <- c(lapply(c(60, 200), few_ties, 1), lapply(c(60, 200), few_ties, 2), lapply(c(100, 200), few_ties, 3))
  r <- signed_rank_test(paired(cases), length(cases))
  coin_p <- function(d, alternative) {
    coin::pvalue(coin::wilcoxsign_test(d ~ numeric(length(d)), distribution = "exact", alternative = alternative))
  }
  expect_equal(r$p_greater, vapply(cases, coin_p, 0, "greater"), tolerance = 1e-10)
  expect_equal(r$p_less, vapply(cases, coin_p, 0, "less"), tolerance = 1e-10)
})

test_that("known values: separated samples stay at 2^-n whatever the ties; all zeros give p = 1", {
  r <- signed_rank_test(paired(list(1:10 / 10, c(1, 1, 2, 2, 3, 3, 3, 4, 5, 5), -(1:10), c(0, 0, 0), 5, c(0, 0, 1, 2))))
  expect_equal(r$p_greater, c(2^-10, 2^-10, 1, 1, 0.5, 0.25))
  expect_equal(r$p_less, c(1, 1, 2^-10, 1, 1, 1))
  expect_equal(r$V, c(55, 55, 0, 0, 1, 7))
  # c(0, 0, 1, 2): Walsh averages 0 0 0 .5 .5 1 1 1 1.5 2; 4 pairs cannot reach 95 %: their range
  expect_equal(r[6, c(estimate, ci_low, ci_high)], c(0.75, 0, 2))
  expect_equal(r[4, c(n, n_zero, estimate, ci_low, ci_high)], c(3, 3, 0, 0, 0))
})

test_that("the C routine gives signed_rank_test_sorted's values bit for bit, rows in any order", {
  set.seed(14)
  cases <- c(lapply(1:150, function(i) rnorm(sample(1:80, 1), 0.1)),                                  # untied
             lapply(1:150, function(i) round(rnorm(sample(1:80, 1), 0.1), sample(0:2, 1))),           # ties, zeros
             lapply(1:40, function(i) c(numeric(sample(1:5, 1)), rnorm(sample(1:60, 1)))),            # zeros only
             lapply(1:300, function(n) rnorm(n)),                                                     # every n
             lapply(c(100, 300, 500), few_ties, 3),                                                    # a few ties
             list(rnorm(500, 0.05), round(rnorm(300, 0.05), 2), c(0, 0), 3, -2, c(1, -1, 1, -1)))
  d <- paired(cases)
  d <- rbind(d, data.table(test = length(cases) + 2L, value = 1))[sample(.N)]   # test length + 1: no rows
  for (level in c(0.95, 0.5, 0.999)) {   # the critical ranks of every n from 1 to 300 at each
    expect_false(is.null(call_native("nbh_signed_rank_test", d$test, d$value, length(cases) + 2L, level)))
    r <- signed_rank_test(d, length(cases) + 2L, level)
    expect_identical(r, signed_rank_test_sorted(d, length(cases) + 2L, level))
  }
  expect_identical(unlist(r[length(cases) + 1L, -1L]), c(n = 0, n_zero = 0, V = 0, p_greater = NA, p_less = NA,
                                                         estimate = NA, ci_low = NA, ci_high = NA))
  expect_identical(nrow(signed_rank_test(d[0], 0L)), 0L)
  expect_identical(signed_rank_test(d[0], 0L), signed_rank_test_sorted(d[0], 0L))
})

test_that("the interval's order statistics are exact whatever the spread: heavy tails, outliers, heavy ties", {
  # The Walsh sums are selected with interpolated pivots; spreads far from
  # smooth send them to random pivots. Every case: R's values bit for bit.
  set.seed(16)
  cases <- c(lapply(1:20, function(i) rcauchy(sample(100:400, 1))),                       # heavy tails
             lapply(1:20, function(i) c(rnorm(sample(100:300, 1)), 1e6, -1e5, 1e12)),     # outliers
             lapply(1:20, function(i) sample(c(-2, -1, 0, 1, 2, 50), sample(100:400, 1), replace = TRUE)),  # few values
             lapply(1:10, function(i) rep(c(0.25, 7), c(150, 150))),                      # two values
             lapply(1:10, function(i) exp(rnorm(300, 0, 4))),                             # skewed, all positive
             list(c(rep(0, 200), 1:100), seq(-1, 1, length.out = 1000)))
  d <- paired(cases)
  expect_identical(signed_rank_test(d, length(cases)), signed_rank_test_sorted(d, length(cases)))
})

test_that("bad input: an error, not a wrong p", {
  expect_error(signed_rank_test(list(test = 1:2, value = c(1, NA))), "finite")
  expect_error(signed_rank_test(list(test = 1:2, value = c(1, Inf))), "finite")
  expect_error(signed_rank_test(list(test = 1L, value = 1), level = 1), "level")
  expect_error(signed_rank_test(list(test = rep(1L, 1001), value = rnorm(1001))), "1000 pairs")
  expect_error(call_native("nbh_signed_rank_test", 3L, 1, 2L, 0.95), "not in 1..2")
})

test_that("the interval covers the center: at its exact level for continuous differences, at least for rounded ones", {
  set.seed(15)
  runs <- 3000L
  n <- 20L
  continuous <- signed_rank_test(list(test = rep(seq_len(runs), each = n), value = rnorm(runs * n, 0.3)), runs)
  achieved <- 1 - 2 * psignrank(qsignrank(0.025, n) - 1, n)   # 0.952 at 20 pairs
  expect_equal(mean(continuous$ci_low <= 0.3 & 0.3 <= continuous$ci_high), achieved, tolerance = 0.012 / achieved)
  # Rounded to half a standard deviation around 0: ties and 20 % zeros.
  rounded <- signed_rank_test(list(test = rep(seq_len(runs), each = n), value = round(rnorm(runs * n) * 2) / 2), runs)
  expect_gte(mean(rounded$ci_low <= 0 & 0 <= rounded$ci_high), 0.95)
  # and the tests keep their level under the null: P(p <= 0.05) <= 0.05 (0.008: 2 sd of 3000 draws)
  null <- signed_rank_test(list(test = rep(seq_len(runs), each = n), value = rnorm(runs * n)), runs)
  expect_lte(mean(null$p_greater <= 0.05), 0.05 + 0.008)
  expect_lte(mean(rounded$p_greater <= 0.05), 0.05 + 0.008)
  expect_lte(mean(rounded$p_less <= 0.05), 0.05 + 0.008)
})
