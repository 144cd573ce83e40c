test_that("run_medians is the median of each group, odd and even sizes", {
  dt <- data.table(id = c(2L, 2L, 2L, 1L, 1L, 1L, 1L, 3L), seconds = c(9, 1, 5, 4, 1, 3, 2, 7))
  m <- run_medians(dt)
  expect_equal(m$id, 1:3)
  expect_identical(m$median, c(2.5, 5, 7))
  expect_identical(m$n, c(4L, 3L, 1L))
})

test_that("run_medians equals stats::median on random groups", {
  set.seed(2)
  dt <- data.table(run = sample(1:3, 500, TRUE), id = sample(1:40, 500, TRUE), seconds = rlnorm(500))
  m <- run_medians(dt, "seconds", c("run", "id"))
  ref <- dt[, .(median = median(seconds), n = .N), keyby = .(run, id)]
  expect_equal(m$median, ref$median, tolerance = 1e-15)
  expect_identical(m$n, ref$n)
  expect_identical(m$run, ref$run)
  expect_identical(m$id, ref$id)
})

test_that("run_medians of the values tukey_filter kept (the analyzer's step 1)", {
  dt <- data.table(id = 1L, seconds = c(1, 2, 3, 4, 5, 6, 7, 8, 9, 1000))
  expect_identical(run_medians(tukey_filter(dt))$median, 5)
  expect_identical(run_medians(tukey_filter(dt))$n, 9L)
})

test_that("the analyzer's one-sort reduction of a run equals run_medians(tukey_filter(x))", {
  set.seed(5)
  ex <- data.table(id = c(4L, 9L, 2L), nrep = c(30L, 7L, 1L))
  x <- data.table(id = rep(ex$id, ex$nrep), seconds = rlnorm(38) * rep(c(1, 9, 1, 1), c(20, 1, 16, 1)))
  archive <- list(dir = tempfile("archive-"), experiments = ex)
  dir.create(file.path(archive$dir, "results"), recursive = TRUE)
  fwrite(x[, .(id, rep = 0L, seconds)], file.path(archive$dir, "results", "r1.results.csv"))
  m <- reduce_run(data.table(run_id = "r1", state = "done"), archive)
  x <- fread(file.path(archive$dir, "results", "r1.results.csv"))[, .(id, seconds)]   # as written
  ref <- run_medians(tukey_filter(x))
  for (col in c("id", "median", "n")) expect_identical(m[[col]], ref[[col]])
  expect_equal(m$id, c(2L, 4L, 9L))
  expect_lt(m$n[2], 30L)     # the 9x value of experiment 4 is gone
})
