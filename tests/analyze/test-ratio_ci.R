# ratio_ci: the resampled median's distribution against every resample
# enumerated by hand; the interval against a known ratio.

# Every one of the n^n equally likely resamples of positions 1..n: the
# positions of its two middle values (the same for odd n), with probabilities.
enumerated_pmf <- function(n) {
  draws <- as.matrix(expand.grid(rep(list(seq_len(n)), n)))
  draws <- t(apply(draws, 1, sort))
  i <- draws[, (n + 1) %/% 2]
  j <- draws[, n %/% 2 + 1]
  x <- data.table(i = i, j = j)[, .(p = .N / nrow(draws)), keyby = .(i, j)]
  x[]
}

test_that("median_resample_pmf is every resample counted, for odd and even n", {
  for (n in 2:6) {
    d <- median_resample_pmf(n)
    got <- setkey(data.table(i = d$i, j = d$j, p = d$p), i, j)
    expect_equal(got, enumerated_pmf(n), tolerance = 1e-12, info = paste("n =", n))
  }
  expect_equal(median_resample_pmf(1)$p, 1)
  expect_equal(sum(median_resample_pmf(30)$p), 1, tolerance = 1e-12)
})

test_that("the bootstrap variance of log(median) is that of the enumerated resamples", {
  for (x in list(c(2.0, 2.2, 2.3, 2.9, 3.1), c(10, 11, 13, 14), c(54, 57, 64, 79, 3687, 4316))) {
    draws <- as.matrix(expand.grid(rep(list(x), length(x))))
    resampled <- log(apply(draws, 1, median))
    expect_equal(log_median_var(x), mean(resampled^2) - mean(resampled)^2, tolerance = 1e-9,
                 info = paste(x, collapse = " "))
  }
  expect_true(is.na(log_median_var(5)))
})

test_that("log_median_spread gives every cell what log_median_var gives its run medians", {
  set.seed(8)
  medians <- rbindlist(lapply(1:7, function(c) data.table(cell = c, run = seq_len(3 + c %% 4),
                                                          median = rlnorm(3 + c %% 4))))
  spread <- log_median_spread(medians)
  expect_equal(spread$cell, 1:7)
  expect_equal(spread$log_var, vapply(1:7, function(c) log_median_var(medians[cell == c, median]), 0),
               tolerance = 1e-12)
})

test_that("ratio_ci: the ratio of medians inside its interval, as wide in factors either way", {
  ci <- ratio_ci(c(1.2, 1.3, 1.25, 1.4, 1.22), c(1, 1.1, 0.95, 1.05))
  expect_equal(ci[["ratio"]], 1.25 / 1.025)
  expect_lt(ci[["low"]], ci[["ratio"]])
  expect_gt(ci[["high"]], ci[["ratio"]])
  expect_equal(ci[["ratio"]] / ci[["low"]], ci[["high"]] / ci[["ratio"]])
  expect_error(ratio_ci(c(1, -1), 1), "positive")
})

test_that("the 95% interval covers the true ratio in about 95% of repeated draws", {
  # Run medians from log-normal distributions whose medians differ by a
  # known factor; 600 repeated campaigns of 10 and of 15 runs a side.
  set.seed(20171)
  for (n in c(10L, 15L)) {
    covered <- vapply(seq_len(600), function(k) {
      ci <- ratio_ci(rlnorm(n, log(1.3 * 40e-6), 0.15), rlnorm(n, log(40e-6), 0.15))
      ci[["low"]] <= 1.3 && 1.3 <= ci[["high"]]
    }, logical(1))
    # 95% of 600 is 570; two binomial standard errors (11) either way.
    expect_gte(sum(covered), 548, label = paste("covered of 600, n =", n))
    expect_lte(sum(covered), 592, label = paste("covered of 600, n =", n))
  }
})

test_that("every unpaired test of an analysis has the interval of its own rank-sum test (Moses)", {
  archive <- planted_archive(seed = 12L)
  result <- suppressWarnings(analyze_archives(archive))
  t <- result$tests
  expect_setequal(unique(t$method), "unpaired")
  expect_false(anyNA(t$ratio_ci_low))   # 8 runs a side reach 95 %
  moses <- function(a, b) {
    exp(as.numeric(suppressWarnings(wilcox.test(log(a), log(b), conf.int = TRUE, exact = TRUE))$conf.int))
  }
  one <- t[slower == "a"][1]
  a <- result$medians[cell == one$a_cell, median]
  b <- result$medians[cell == one$b_cell, median]
  expect_equal(c(one$ratio_ci_low, one$ratio_ci_high), moses(a, b), tolerance = 1e-12)
  flipped <- t[slower == "b"]
  if (nrow(flipped)) {
    f <- flipped[1]
    expect_equal(c(f$ratio_ci_low, f$ratio_ci_high),
                 moses(result$medians[cell == f$b_cell, median], result$medians[cell == f$a_cell, median]),
                 tolerance = 1e-12)
  }
})

test_that("the C routine gives weighted_log_var's values, bit for bit", {
  set.seed(46)
  for (n in c(2L, 3L, 10L, 29L, 30L, 31L)) {
    x <- apply(matrix(rlnorm(n * 200, -11, 0.1), nrow = n), 2, sort)
    d <- median_resample_pmf(n)
    keep <- d$p > 1e-9
    p <- d$p[keep] / sum(d$p[keep])
    native <- call_native("nbh_log_median_var", x, d$i[keep], d$j[keep], p)
    expect_false(is.null(native))
    expect_identical(native, weighted_log_var(x, d$i[keep], d$j[keep], p))
    expect_identical(log_median_var_matrix(x), native)
  }
  expect_error(call_native("nbh_log_median_var", matrix(1, 2, 2), 3L, 1L, 1), "not in 1..2")
})
