# The persistent break-even (analyze/assess/break_even.R) on synthetic,
# hand-computed numbers: _init times in results/RUN.preparation.csv and run
# medians of a persistent cell and its blocking partner.

# A frame of one context with the cells of `ops` (msize 8) and n runs of
# archive 1, whose preparation files hold init_us[r] for experiment id 2
# (the persistent one; id i is cell i).
break_even_case <- function(ops, init_us, blocking_us, persistent_us) {
  n <- length(init_us)
  dir <- tempfile("break-even-")
  dir.create(file.path(dir, "results"), recursive = TRUE)
  runs <- data.table(archive = 1L, run_id = sprintf("1x4-default-r%03d", seq_len(n)), context = 1L, run_key = seq_len(n))
  for (r in seq_len(n)) {
    fwrite(data.table(id = 2L, op = ops[2], init_seconds = init_us[r] * 1e-6),
           file.path(dir, "results", paste0(runs$run_id[r], ".preparation.csv")))
  }
  cells <- data.table(cell = seq_along(ops), exp = seq_along(ops), context = 1L, library = "openmpi",
                      deployment = "1x4", op = ops, msize = 8L, radius = NA_integer_)
  frame <- list(cells = cells, runs = runs, ids = data.table(archive = 1L, id = seq_along(ops), exp = seq_along(ops)))
  medians <- data.table(cell = rep(1:2, each = n), run = rep(seq_len(n), 2),
                        median = c(blocking_us, persistent_us) * 1e-6)
  setkeyv(medians, c("cell", "run"))
  operations <- data.table(name = ops, persistent = c("0", "1"))
  list(archives = list(list(dir = dir)), frame = frame, medians = medians, operations = operations)
}

be_of <- function(case, level = 0.95) break_even(case$archives, case$frame, case$medians, case$operations, level)

test_that("break-even: the smallest k with _init + k P < k B, and the order-statistic interval of the per-run ones", {
  # Per run: init 105, 95, 115, 85, 125, 105 us; B - P = 2 us in every run:
  # k_r = 52.5, 47.5, 57.5, 42.5, 62.5, 52.5. Medians: I = 105, B = 10, P = 8,
  # so I + k P < k B from k > 105 / 2 = 52.5 on: k* = 53. With 6 runs the 95 %
  # interval of the median is [k_(1), k_(6)] = [42.5, 62.5]: 43 .. 63.
  case <- break_even_case(c("neighbor_alltoall", "neighbor_alltoall_init"), init_us = c(105, 95, 115, 85, 125, 105),
                          blocking_us = c(10, 11, 9, 10, 12, 8), persistent_us = c(8, 9, 7, 8, 10, 6))
  be <- be_of(case)
  expect_equal(nrow(be), 1L)
  expect_identical(be$cell, 2L)
  expect_identical(be$blocking_cell, 1L)
  expect_identical(be$runs, 6L)
  expect_equal(be$init_s, 105e-6)
  expect_equal(c(be$blocking_s, be$persistent_s, be$saving_s), c(10e-6, 8e-6, 2e-6))
  expect_identical(be$break_even, 53)
  expect_false(be$never)
  expect_true(be$saving_shown)
  expect_identical(c(be$break_even_low, be$break_even_high), c(43, 63))
  expect_false(be$never_low || be$never_high)
})

test_that("break-even: never where the persistent call is not faster; a run where it is not makes the bound never", {
  # P = 10 >= B = 9 (medians): never. Per run B - P: 1, -1, -1, -1, 1, -1 us.
  case <- break_even_case(c("neighbor_alltoallv", "neighbor_alltoallv_init"), init_us = rep(50.5, 6),
                          blocking_us = c(10, 9, 9, 9, 11, 9), persistent_us = c(9, 10, 10, 10, 10, 10))
  be <- be_of(case)
  expect_true(be$never)
  expect_true(is.na(be$break_even))
  # k_r = 50.5, Inf, Inf, Inf, 50.5, Inf: [k_(1), k_(6)] = [50.5, Inf] -> 51 .. never
  expect_identical(be$break_even_low, 51)
  expect_true(be$never_high)
  expect_true(is.na(be$break_even_high))
  # In the table: "never".
  tab <- break_even_table(list(break_even = be, params = data.table(name = c("library", "deployment", "op", "msize")),
                               frame = case$frame, ci_level = 0.95))
  expect_identical(tab$break_even, "never")
  expect_identical(tab$break_even_low, "51")
  expect_identical(tab$break_even_high, "never")
  expect_identical(tab$blocking_op, "neighbor_alltoallv")
})

test_that("break-even: with 5 runs there is no 95 % interval; the bound is that of the binomial table", {
  case <- break_even_case(c("neighbor_alltoall", "neighbor_alltoall_init"), init_us = rep(10.5, 5),
                          blocking_us = rep(3, 5), persistent_us = rep(2, 5))
  be <- be_of(case)
  expect_identical(be$break_even, 11)            # 10.5 / 1 = 10.5: from 11 repetitions on
  expect_true(is.na(be$break_even_low) && is.na(be$break_even_high) && !be$never_low && !be$never_high)
  # 2 P(Bin(n, 1/2) <= l - 1) <= 0.05: n = 6 -> 1 (2/64), n = 5 -> none (2/32 > 0.05),
  # n = 30 -> 10 (the table's x_(10) .. x_(21)), n = 10 -> 2 (22/1024).
  expect_identical(order_statistic_bound(6L, 0.95), 1L)
  expect_true(is.na(order_statistic_bound(5L, 0.95)))
  expect_identical(order_statistic_bound(30L, 0.95), 10L)
  expect_identical(order_statistic_bound(10L, 0.95), 2L)
})

test_that("break-even: a saving within the noise gives no break-even, however large its median k", {
  # Per run B - P: 0.5, -0.4, 0.3, -0.2, 0.6, 0.1 us: the median saving is 0.2 us (k = 100 / 0.2 = 500),
  # but the one-sided 95 % lower bound of the median saving is x_(1) = -0.4 (P(Bin(6, 1/2) <= 0) = 1/64).
  case <- break_even_case(c("neighbor_alltoall", "neighbor_alltoall_init"), init_us = rep(100, 6),
                          blocking_us = rep(10, 6), persistent_us = 10 - c(0.5, -0.4, 0.3, -0.2, 0.6, 0.1))
  be <- be_of(case)
  expect_false(be$saving_shown)
  expect_false(be$never)
  expect_true(is.na(be$break_even))
  tab <- break_even_table(list(break_even = be, params = data.table(name = c("library", "deployment", "op", "msize")),
                               frame = case$frame, ci_level = 0.95))
  expect_identical(tab$break_even, "not shown")
})

test_that("break-even: the break-even is the median of the per-run ones, so it lies within their interval", {
  # k_r = 10, 20, 30, 40, 50, 1000 (init 100, savings 10, 5, 3.33, 2.5, 2, 0.1): median 35 -> 36,
  # interval [k_(1), k_(6)] = 11 .. 1001; the ratio of medians would give 100 / 2.9 = 34.5 -> 35
  case <- break_even_case(c("neighbor_alltoall", "neighbor_alltoall_init"), init_us = rep(100, 6),
                          blocking_us = rep(20, 6), persistent_us = 20 - 100 / c(10, 20, 30, 40, 50, 1000))
  be <- be_of(case)
  expect_identical(be$break_even, 36)
  expect_true(be$break_even_low <= be$break_even && be$break_even <= be$break_even_high)
})

test_that("break-even: nothing without persistent cells, without preparation files or without a blocking partner", {
  case <- break_even_case(c("neighbor_alltoall", "neighbor_alltoall_init"), init_us = rep(10.5, 6),
                          blocking_us = rep(3, 6), persistent_us = rep(2, 6))
  no_init <- case
  no_init$archives <- list(list(dir = tempfile("empty-")))
  expect_identical(nrow(be_of(no_init)), 0L)
  other_msize <- case
  other_msize$frame$cells[op == "neighbor_alltoall", msize := 64L]   # the partner differs: no pair
  expect_identical(nrow(be_of(other_msize)), 0L)
  blocking_only <- case
  blocking_only$frame$cells[, op := "neighbor_alltoall"]
  blocking_only$frame$cells[2, msize := 64L]
  expect_identical(nrow(be_of(blocking_only)), 0L)
})
