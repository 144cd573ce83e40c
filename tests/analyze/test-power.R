# power: the smallest p a rank-sum test can reach, and "cannot detect".

test_that("the smallest p of n against n runs is 1 / C(2n, n)", {
  expect_equal(min_attainable_p(6, 6), 1 / 924)
  expect_equal(min_attainable_p(7, 7), 1 / 3432)
  expect_equal(min_attainable_p(3, 5), 1 / 56)
  # It is what wilcox.test gives when every a lies above every b.
  expect_equal(min_attainable_p(6, 6), wilcox.test(11:16, 1:6, alternative = "greater")$p.value)
  expect_equal(runs_needed(0.001), 7L)
  expect_equal(runs_needed(0.05), 3L)   # 1 / C(6, 3) = 0.05
})

test_that("Holm multiplies the best p by the number of tests; BH does not", {
  expect_equal(smallest_adjusted_p(1e-4, "holm", 20), 2e-3)
  expect_equal(smallest_adjusted_p(1e-4, "bh", 20), 1e-4)
  expect_equal(smallest_adjusted_p(0.2, "holm", 20), 1)
})

test_that("6 runs: every guideline 'cannot detect' at p <= 0.001; 8 runs: ok", {
  for (n in c(6L, 8L)) {
    archive <- planted_archive(seed = 13L, nrun = n)
    result <- suppressWarnings(analyze_archives(archive))
    s <- summary_power(summary_table(result), test_table(result), 0.001)
    expect_equal(unique(s$power), if (n == 6L) "cannot detect" else "ok", info = n)
    expect_equal(unique(s$smallest_p), 1 / choose(2 * n, n))
    expect_equal(s$min_p_value, s$min_p_adjusted)
  }
})
