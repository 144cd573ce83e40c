# cell_percentiles in C (analyze/native/cell_percentiles.c: order
# statistics found among each run's sorted times) against its R code
# (every time of the cell gathered and sorted), bit for bit, on random
# cells: ties, tiny and empty runs, the Tukey filter's kept windows.

random_cells <- function(cells, runs, sizes, draw) {
  rows <- rbindlist(lapply(seq_len(cells), function(c) {
    k <- sample(runs, 1L)
    data.table(cell = c, run = seq_len(k), n = sample(sizes, k, TRUE))
  }))
  values <- unlist(lapply(rows$n, function(n) sort(draw(n))))
  kept <- pmax(0L, rows$n - sample(0:3, nrow(rows), TRUE))
  m <- data.table(cell = rows$cell, run = rows$run, at = cumsum(c(0, rows$n))[seq_len(nrow(rows))],
                  n = rows$n, below = pmin(rows$n - kept, sample(0:2, nrow(rows), TRUE)), n_kept = kept)
  setkeyv(m, c("cell", "run"))
  list(m = m, values = values)
}

expect_same_percentiles <- function(x) {
  in_c <- cell_percentiles(x$m, x$values)
  in_r <- setDT(cell_percentiles_r(x$m[, .(cell, at, n, below, n_kept)], x$values))
  expect_identical(unname(as.list(in_c[, -(1:2)])), unname(as.list(in_r)))
}

test_that("cell percentiles in C equal the R code's, with ties, empty runs and kept windows", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  set.seed(2)
  expect_same_percentiles(random_cells(300, 1:40, 0:60, function(n) rnorm(n)))
  expect_same_percentiles(random_cells(300, 1:40, 0:60, function(n) round(rnorm(n), 1)))  # many ties
  expect_same_percentiles(random_cells(300, 1:5, 0:3, function(n) as.numeric(sample(3, n, TRUE))))
  expect_same_percentiles(random_cells(100, 30, 50, function(n) rexp(n) * runif(1, 1, 5)))  # runs of other speeds
  expect_same_percentiles(random_cells(100, 30, 50, function(n) c(rep(1, n %/% 2), rnorm(n - n %/% 2, 3))))
  expect_same_percentiles(random_cells(50, 1:100, 1:500, function(n) rlnorm(n, sample(c(0, 5), 1))))
  # runs far apart, some all one value: the searches start far from the answer
  expect_same_percentiles(random_cells(200, 2:40, 0:80, function(n) {
    if (runif(1) < 0.3) rep(runif(1), n) else rlnorm(n, sample(c(-3, 0, 3), 1), 0.1)
  }))
})
