p_ref <- function(x, y) suppressWarnings(wilcox.test(x, y, alternative = "greater")$p.value)

run_tests_input <- function(cases) {
  rbindlist(lapply(seq_along(cases), function(i) {
    n <- c(length(cases[[i]]$x), length(cases[[i]]$y))
    data.table(test = rep(i, sum(n)), value = c(cases[[i]]$x, cases[[i]]$y), is_x = rep(c(TRUE, FALSE), n))
  }))
}

run_tests <- function(cases) rank_sum_test(run_tests_input(cases), length(cases))

test_that("p equals wilcox.test(x, y, alternative = 'greater') exactly: no ties, exact", {
  set.seed(3)
  cases <- lapply(1:60, function(i) list(x = rnorm(sample(1:49, 1), runif(1, -1, 1)), y = rnorm(sample(1:49, 1))))
  r <- run_tests(cases)
  expect_true(all(r$exact))
  expect_identical(r$p_x_right, vapply(cases, function(c) p_ref(c$x, c$y), 0))
  expect_identical(r$p_y_right, vapply(cases, function(c) p_ref(c$y, c$x), 0))
  expect_identical(r$W, vapply(cases, function(c) unname(wilcox.test(c$x, c$y)$statistic), 0))
})

test_that("p equals wilcox.test with ties and with 50 or more values (normal approximation)", {
  set.seed(4)
  # Every tied case has the value 0 on both sides.
  cases <- c(lapply(1:30, function(i) list(x = c(0, round(rnorm(sample(2:30, 1), 0.5), 1)), y = c(0, round(rnorm(sample(2:30, 1)), 1)))),
             lapply(1:30, function(i) list(x = rnorm(sample(50:70, 1), 0.2), y = rnorm(sample(10:70, 1)))),
             list(list(x = c(1, 1, 1), y = c(1, 1, 1))))            # all tied: p = 1
  r <- run_tests(cases)
  expect_false(any(r$exact))
  expect_identical(r$p_x_right, vapply(cases, function(c) p_ref(c$x, c$y), 0))
  expect_identical(r$p_y_right, vapply(cases, function(c) p_ref(c$y, c$x), 0))
  expect_identical(r$p_x_right[61], 1)
})

test_that("known values: all of x right of y, 8 runs each, gives 1/choose(16, 8)", {
  r <- run_tests(list(list(x = 11:18 + 0.5, y = 1:8 + 0.5), list(x = 1:8 + 0.5, y = 11:18 + 0.5)))
  expect_equal(r$p_x_right, c(1 / choose(16, 8), 1))
  expect_equal(r$W, c(64, 0))
  expect_equal(r$n_x, c(8L, 8L))
})

test_that("unequal sample sizes (missing runs on one side) and single values", {
  cases <- list(list(x = c(5.1, 5.3, 5.2, 5.6, 5.5, 5.4, 5.7, 5.8), y = c(4.1, 4.3, 4.2, 4.6, 4.5)),
                list(x = 2.5, y = c(1.5, 0.5)), list(x = 1, y = 2))
  r <- run_tests(cases)
  expect_equal(r$n_y, c(5L, 2L, 1L))
  expect_identical(r$p_x_right, vapply(cases, function(c) p_ref(c$x, c$y), 0))
  expect_equal(r$p_x_right[1], 1 / choose(13, 5))
})

test_that("the C routine gives rank_sum_test_sorted's values, bit for bit, rows in any order", {
  set.seed(45)
  cases <- c(lapply(1:200, function(i) list(x = rlnorm(sample(1:49, 1)), y = rlnorm(sample(1:49, 1)))),
             lapply(1:100, function(i) list(x = round(rnorm(sample(1:40, 1), 0.3), 1), y = round(rnorm(sample(1:40, 1)), 1))),
             lapply(1:50, function(i) list(x = rnorm(sample(50:80, 1), 0.2), y = rnorm(sample(1:80, 1)))),
             list(list(x = 1, y = numeric()), list(x = numeric(), y = numeric())))
  d <- rbindlist(lapply(seq_along(cases), function(i) {
    n <- c(length(cases[[i]]$x), length(cases[[i]]$y))
    data.table(test = rep(i, sum(n)), value = c(cases[[i]]$x, cases[[i]]$y), is_x = rep(c(TRUE, FALSE), n))
  }))
  d <- d[sample(.N)]
  for (both in c(TRUE, FALSE)) {
    expect_false(is.null(call_native("nbh_rank_sum_test", d$test, d$value, d$is_x, length(cases), both, FALSE)))
    expect_identical(rank_sum_test(d, length(cases), both), rank_sum_test_sorted(d, length(cases), both))
  }
  expect_identical(nrow(rank_sum_test(d[0], 0L)), 0L)
  expect_error(call_native("nbh_rank_sum_test", 3L, 1, TRUE, 2L, TRUE, FALSE), "not in 1..2")
  expect_null(call_native("nbh_rank_sum_test", 1:2, c(1, NA), c(TRUE, FALSE), 2L, TRUE, FALSE))
})

# ---- ties = "exact": the exact conditional p whatever the ties ----

# P(T_x >= t_x) and P(T_x <= t_x) over all C(N, n_x) choices of x's values
# among the pooled ones, the midranks kept (doubled: integers).
brute_force_rank_sum <- function(x, y) {
  doubled <- as.integer(2 * rank(c(x, y)))
  m <- length(x)
  t_x <- sum(doubled[seq_len(m)])
  sums <- colSums(matrix(doubled[combn(length(doubled), m)], m))
  c(mean(sums >= t_x), mean(sums <= t_x))
}

test_that("ties = 'exact' keeps the study's p where the study is exact (no ties, fewer than 50 a side)", {
  set.seed(21)
  cases <- lapply(1:100, function(i) list(x = rnorm(sample(1:49, 1), 0.3), y = rnorm(sample(1:49, 1))))
  expect_identical(run_tests(cases), rank_sum_test(run_tests_input(cases), length(cases), ties = "exact"))
})

test_that("ties = 'exact' with ties: the exact conditional p of all C(N, n_x) subsets, wherever R approximates", {
  set.seed(22)
  cases <- c(lapply(1:200, function(i) list(x = sample(0:6, sample(1:8, 1), TRUE) / 2, y = sample(0:5, sample(1:8, 1), TRUE) / 2)),
             list(list(x = c(1, 1, 1), y = c(1, 1, 1))))
  r <- rank_sum_test(run_tests_input(cases), length(cases), ties = "exact")
  expected <- t(vapply(cases, function(c) brute_force_rank_sum(c$x, c$y), c(0, 0)))
  expect_true(all(r$exact))
  expect_equal(r$p_x_right, expected[, 1], tolerance = 1e-14)
  expect_equal(r$p_y_right, expected[, 2], tolerance = 1e-14)
  expect_identical(r$W, run_tests(cases)$W)
  expect_identical(rank_sum_test(run_tests_input(cases), length(cases), both = FALSE, ties = "exact")$p_x_right, r$p_x_right)
})

test_that("ties = 'exact': coin::wilcox_test's exact p with ties, and pwilcox's without ties at 50 or more a side", {
  set.seed(23)
  tied <- c(lapply(1:30, function(i) list(x = round(rnorm(sample(3:25, 1), 0.4), 1), y = round(rnorm(sample(3:25, 1)), 1))),
            lapply(1:3, function(i) list(x = round(rnorm(50, 0.3), 1), y = round(rnorm(50), 1))))
  r <- rank_sum_test(run_tests_input(tied), length(tied), ties = "exact")
  coin_p <- function(c, alternative) {
    side <- factor(rep(c("x", "y"), c(length(c$x), length(c$y))), levels = c("x", "y"))
    coin::pvalue(coin::wilcox_test(c(c$x, c$y) ~ side, distribution = "exact", alternative = alternative))
  }
  expect_equal(r$p_x_right, vapply(tied, coin_p, 0, "greater"), tolerance = 1e-10)
  expect_equal(r$p_y_right, vapply(tied, coin_p, 0, "less"), tolerance = 1e-10)
  large <- lapply(1:12, function(i) list(x = rnorm(sample(50:60, 1), 0.3), y = rnorm(sample(c(20, 50:60), 1))))
  r <- rank_sum_test(run_tests_input(large), length(large), ties = "exact")
  expect_true(all(r$exact))
  expect_equal(r$p_x_right, vapply(large, function(c) {
    pwilcox(unname(wilcox.test(c$x, c$y)$statistic) - 1, length(c$x), length(c$y), lower.tail = FALSE)
  }, 0), tolerance = 1e-12)
})

test_that("a completely separated 7-vs-7 comparison stays at 1/3432 when two values tie (the study: 0.00107)", {
  cases <- list(list(x = c(11, 12, 13, 13, 15, 16, 17), y = 1:7), list(x = 11:17, y = 1:7))
  study <- run_tests(cases)
  exact <- rank_sum_test(run_tests_input(cases), 2L, ties = "exact")
  expect_equal(study$p_x_right[1], 0.00107, tolerance = 0.01)
  expect_equal(exact$p_x_right, rep(1 / choose(14, 7), 2))
  expect_equal(exact$exact, c(TRUE, TRUE))
})

test_that("ties = 'exact': the C routine gives rank_sum_test_sorted's values bit for bit; beyond the table's limit the study's", {
  set.seed(24)
  cases <- c(lapply(1:100, function(i) list(x = round(rnorm(sample(1:40, 1), 0.3), 1), y = round(rnorm(sample(1:40, 1)), 1))),
             lapply(1:12, function(i) list(x = rnorm(49 + i, 0.2), y = rnorm(50 + i %% 3))),     # more (k, N) than the cache
             lapply(1:2, function(i) list(x = round(rnorm(50, 0.3), 1), y = round(rnorm(50), 1))),
             list(list(x = round(rnorm(400), 1), y = round(rnorm(400), 1)), list(x = 1, y = numeric())))
  d <- run_tests_input(cases)[sample(.N)]
  r <- rank_sum_test(d, length(cases), ties = "exact")
  expect_false(is.null(call_native("nbh_rank_sum_test", d$test, d$value, d$is_x, length(cases), TRUE, TRUE)))
  expect_identical(r, rank_sum_test_sorted(d, length(cases), ties = "exact"))
  # 400 a side with ties: (401 x ~160000) counts, over the limit
  study <- rank_sum_test(d, length(cases))
  expect_identical(r[length(cases) - 1L], study[length(cases) - 1L])
  expect_false(r$exact[length(cases) - 1L])
  expect_true(is.na(r$p_x_right[length(cases)]))
})
