p_ref <- function(x, y) suppressWarnings(wilcox.test(x, y, alternative = "greater")$p.value)

run_tests <- function(cases) {
  d <- rbindlist(lapply(seq_along(cases), function(i) {
    data.table(test = i, value = c(cases[[i]]$x, cases[[i]]$y),
               is_x = rep(c(TRUE, FALSE), c(length(cases[[i]]$x), length(cases[[i]]$y))))
  }))
  rank_sum_test(d, length(cases))
}

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
