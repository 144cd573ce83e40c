# adjust_p: Holm and Benjamini-Hochberg against values computed by hand.
# p = 0.01, 0.04, 0.03, 0.005, NA, 0.2: five tests (NA is no test).
p <- c(0.01, 0.04, 0.03, 0.005, NA, 0.2)

test_that("none leaves the p-values as they are", {
  expect_identical(adjust_p(p, "none"), p)
})

test_that("holm: sorted p times (m - i + 1), running maximum", {
  # sorted: 0.005 x 5 = 0.025, 0.01 x 4 = 0.04, 0.03 x 3 = 0.09, 0.04 x 2 = 0.08 -> 0.09, 0.2 x 1 = 0.2
  expect_equal(adjust_p(p, "holm"), c(0.04, 0.09, 0.09, 0.025, NA, 0.2))
})

test_that("bh: sorted p times m / i, running minimum from the largest", {
  # descending: 0.2 x 5/5 = 0.2, 0.04 x 5/4 = 0.05, 0.03 x 5/3 = 0.05, 0.01 x 5/2 = 0.025, 0.005 x 5/1 = 0.025
  expect_equal(adjust_p(p, "bh"), c(0.025, 0.05, 0.05, 0.025, NA, 0.2))
})

test_that("adjusted p never exceeds 1, and a single test is unchanged", {
  expect_equal(adjust_p(c(0.5, 0.9), "holm"), c(1, 1))
  expect_equal(adjust_p(0.003, "bh"), 0.003)
  expect_equal(adjust_p(numeric(), "holm"), numeric())
})

test_that("an unknown method is one input error naming the methods", {
  expect_error(adjust_p(p, "bonferroni"), "--adjust: unknown method 'bonferroni' \\(none, holm, bh\\)",
               class = "nbh_input_error")
})

test_that("the verdict uses the adjusted p: a violation at raw p may not survive Holm", {
  archive <- planted_archive(seed = 11L)
  raw <- suppressWarnings(analyze_archives(archive, adjust = "none"))
  holm <- suppressWarnings(analyze_archives(archive, adjust = "holm"))
  expect_equal(holm$tests$p_adjusted, p.adjust(raw$tests$p_value, "holm"))
  expect_equal(holm$tests$violated, holm$tests$ratio >= 1.03 & holm$tests$p_adjusted <= 0.001)
  # 8 runs a side: the smallest p is 1 / C(16, 8) = 7.8e-5; times 320 tests it is above 0.001.
  expect_gt(sum(raw$tests$violated), 0L)
  expect_equal(sum(holm$tests$violated), 0L)
  expect_equal(raw$tests$p_adjusted, raw$tests$p_value)
})
