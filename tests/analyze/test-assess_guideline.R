# Hand-made cells: two ops at two message sizes in one context.
params <- c("library", "deployment", "op", "msize")
cells4 <- make_cells(library = "lib", deployment = "1x2", op = rep(c("x", "y"), each = 2L),
                     msize = rep(c(256L, 1024L), 2L))
cells2 <- cells4[msize == 256L][, cell := .I][]   # 1: op x, 2: op y
x_le_y <- guideline(list(op = "x"), list(op = "y"))

a1 <- c(1.1, 1.3, 1.2, 1.5, 1.4)      # median 1.3
b1 <- c(1.0, 0.9, 1.05, 0.95, 1.02)   # median 1.0, all below a1

test_that("ratio is median(m_a) / median(m_b) and p is wilcox.test(m_a, m_b, 'greater')", {
  med <- make_medians(list(`1` = a1, `3` = b1, `2` = c(2, 2.1, 2.2), `4` = c(2.05, 2.15, 2.25)))
  t <- assess_guideline(x_le_y, cells4, med, params, p_thres = 1)
  expect_equal(t$a_cell, c(1L, 2L))
  expect_equal(t$b_cell, c(3L, 4L))
  expect_equal(t$ratio, c(1.3 / 1.0, 2.1 / 2.15))
  expect_identical(t$p_value[1], wilcox.test(a1, b1, alternative = "greater")$p.value)
  expect_equal(t$p_value[1], 1 / choose(10, 5))
  expect_identical(t$p_value[2], wilcox.test(c(2, 2.1, 2.2), c(2.05, 2.15, 2.25), alternative = "greater")$p.value)
  expect_equal(c(t$runs_a, t$runs_b), c(5L, 3L, 5L, 3L))
  expect_equal(t$violated, c(TRUE, FALSE))   # p_thres = 1: only the ratio decides
})

test_that("p threshold: violated at p == p_thres, not just below it", {
  med <- make_medians(list(`1` = a1, `2` = b1))
  edge <- 1 / choose(10, 5)
  expect_true(assess_guideline(x_le_y, cells2, med, params, p_thres = edge)$violated)
  expect_false(assess_guideline(x_le_y, cells2, med, params, p_thres = edge * (1 - 1e-9))$violated)
  expect_false(assess_guideline(x_le_y, cells2, med, params)$violated)   # default 0.001 < 1/252
})

test_that("ratio threshold: violated at v == v_thres, not just below it, also after rounding", {
  med <- make_medians(list(`1` = c(1.03, 1.03, 1.03), `2` = c(1, 1, 1)))
  # all tied: p = 1, so test the ratio alone with p_thres = 1
  expect_identical(assess_guideline(x_le_y, cells2, med, params, p_thres = 1)$ratio, 1.03)
  expect_true(assess_guideline(x_le_y, cells2, med, params, p_thres = 1, v_thres = 1.03)$violated)
  expect_false(assess_guideline(x_le_y, cells2, med, params, p_thres = 1, v_thres = 1.0300001)$violated)
  # A pair whose quotient is 1.03 only up to rounding still counts as 1.03.
  y <- 31.39
  expect_lt((1.03 * y) / y, 1.03)
  med <- make_medians(list(`1` = 1.03 * y, `2` = y))
  t <- assess_guideline(x_le_y, cells2, med, params, p_thres = 1)
  expect_lt(t$ratio, 1.03)
  expect_true(t$violated)
})

test_that("a ~ b is one test, violated in either direction, reported in the slower direction", {
  alike <- guideline(list(op = "x"), list(op = "y"), relation = "~")
  fast <- c(1, 1.01, 0.99, 1.02, 0.98, 1.005, 0.995, 1.015)
  slow <- 1.2 * fast + 0.001
  # b slower: `<=` sees nothing, `~` sees it.
  med <- make_medians(list(`1` = fast, `2` = slow))
  expect_false(assess_guideline(x_le_y, cells2, med, params)$violated)
  t <- assess_guideline(alike, cells2, med, params)
  expect_equal(nrow(t), 1L)
  expect_true(t$violated)
  expect_equal(t$slower, "b")
  expect_equal(t$ratio, median(slow) / median(fast))
  expect_identical(t$p_value, wilcox.test(slow, fast, alternative = "greater")$p.value)
  # a slower: both see it, `~` reports direction a.
  med <- make_medians(list(`1` = slow, `2` = fast))
  t <- assess_guideline(alike, cells2, med, params)
  expect_true(t$violated)
  expect_equal(t$slower, "a")
  expect_identical(t$p_value, wilcox.test(slow, fast, alternative = "greater")$p.value)
  # alike: not violated either way
  med <- make_medians(list(`1` = fast, `2` = rev(fast)))
  expect_false(assess_guideline(alike, cells2, med, params)$violated)
})

test_that("groups are the tests that differ only in the varied parameter", {
  cells <- make_cells(library = "lib", deployment = rep(c("1x2", "2x2"), each = 8L),
                      op = rep(rep(c("x", "y"), each = 4L), 2L), msize = rep(c(1L, 2L, 4L, 8L), 4L))
  # One slow cell: deployment 1x2, op x, msize 4 (cell 3).
  values <- setNames(lapply(1:16, function(i) 1 + (1:8) / 100), 1:16)
  values[["3"]] <- values[["3"]] * 1.5
  t <- assess_guideline(x_le_y, cells, make_medians(values), params)
  expect_equal(nrow(t), 8L)
  expect_equal(t[, uniqueN(group)], 2L)
  expect_equal(t[, .N, by = group]$N, c(4L, 4L))
  expect_equal(t[violated == TRUE, a_cell], 3L)
  violated_groups <- t[, .(violated = any(violated)), by = group][violated == TRUE, group]
  expect_equal(violated_groups, t[a_cell == 3L, group])
  # varied = op (same cells): groups are the message sizes... of x vs y pairs, one test each
  t2 <- assess_guideline(guideline(list(msize = 1L), list(msize = 2L), varied = "op"), cells,
                         make_medians(values), params)
  expect_equal(nrow(t2), 4L)
  expect_equal(t2[, uniqueN(group)], 2L)   # the two deployments
})

test_that("missing runs on one side: the test uses the runs there are", {
  a <- c(2.0, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6, 2.7)
  b <- c(1.0, 1.1, 1.2, 1.3, 1.4)
  t <- assess_guideline(x_le_y, cells2, make_medians(list(`1` = a, `2` = b)), params)
  expect_equal(c(t$runs_a, t$runs_b), c(8L, 5L))
  expect_identical(t$p_value, wilcox.test(a, b, alternative = "greater")$p.value)
  expect_equal(t$p_value, 1 / choose(13, 5))
  expect_true(t$violated)
})

test_that("a pair without any run medians on one side is not tested, with a warning", {
  med <- make_medians(list(`1` = a1, `3` = b1, `2` = a1))   # cell 4 has no medians
  w <- warnings_of(t <- assess_guideline(x_le_y, cells4, med, params))
  expect_equal(nrow(t), 1L)
  expect_match(w, "1 of 2 comparable cell pairs have no measurements")
})

test_that("nbh_cell_medians gives data.table's median by cell, bit for bit, odd and even counts", {
  set.seed(47)
  m <- data.table(cell = rep(1:300, times = sample(1:31, 300, replace = TRUE)))
  m[, median := signif(rlnorm(.N, -11, 0.3), sample(c(3, 15), .N, replace = TRUE))]   # ties and none
  setkeyv(m, "cell")
  runs <- tabulate(m$cell, 300L)
  first <- cumsum(c(1L, runs))[seq_along(runs)]
  needed <- sort(sample(1:300, 200))
  expect_identical(call_native("nbh_cell_medians", m$median, first, runs, needed),
                   m[cell %in% needed, .(m = median(median)), keyby = cell]$m)
  expect_null(call_native("nbh_cell_medians", c(1, NA), 1L, 2L, 1L))
  expect_error(call_native("nbh_cell_medians", 1, 1L, 0L, 1L), "cell 1 has no values")
})

test_that("shared_runs: side by side where the cells have the same runs, joined where not; the same pairs either way", {
  set.seed(9)
  same <- data.table(cell = rep(1:4, each = 5), run = rep(c(2L, 3L, 5L, 8L, 9L), 4), median = runif(20))
  other <- data.table(cell = rep(1:4, c(5, 4, 5, 3)), run = c(1:5, 2:5, 1:5, c(1L, 3L, 5L)), median = runif(17))
  tests <- data.table(a_cell = c(1L, 3L, 2L), b_cell = c(2L, 4L, 1L))
  for (m in list(same, other)) {
    setkeyv(m, c("cell", "run"))
    runs <- tabulate(m$cell, 4L)
    first <- cumsum(c(1L, runs))[1:4]
    expect_identical(shared_runs(tests, m, runs, first), shared_runs(tests, m))
  }
  expect_identical(nrow(shared_runs(tests, other)), 4L + 3L + 4L)   # runs 2-5; 1, 3, 5; 2-5
})
