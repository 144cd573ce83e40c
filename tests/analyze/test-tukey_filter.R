test_that("tukey_bounds are quantile type 7 quartiles and 1.5 IQR fences, per group", {
  set.seed(1)
  dt <- data.table(id = rep(c(3L, 1L, 2L, 5L), c(50L, 7L, 2L, 1L)), seconds = rexp(60))
  b <- tukey_bounds(dt, "seconds", "id")
  expect_equal(b$id, c(1L, 2L, 3L, 5L))
  expect_equal(b$n, c(7L, 2L, 50L, 1L))
  for (i in seq_len(nrow(b))) {
    x <- dt[id == b$id[i], seconds]
    q <- quantile(x, c(0.25, 0.75), type = 7, names = FALSE)
    expect_identical(c(b$q1[i], b$q3[i]), q)
    expect_identical(b$lower[i], q[1] - 1.5 * (q[2] - q[1]))
    expect_identical(b$upper[i], q[2] + 1.5 * (q[2] - q[1]))
  }
})

test_that("a hand-made group: q1 = 2, q3 = 4, fences -1 and 7, bounds kept", {
  # 1..5 plus the fences themselves plus two outliers; type 7 quartiles of
  # c(-1, 1, 2, 3, 4, 5, 7) are 1.5 and 4.5, so use a set whose are 2 and 4.
  x <- c(2, 2, 3, 4, 4)
  b <- tukey_bounds(data.table(id = 1L, seconds = x))
  expect_identical(c(b$q1, b$q3, b$lower, b$upper), c(2, 4, -1, 7))
  dt <- data.table(id = 1L, seconds = c(x, 7, 7.0001, -1, -1.0001))
  b2 <- tukey_bounds(dt)
  kept <- tukey_filter(dt)
  expect_setequal(kept$seconds, dt$seconds[dt$seconds >= b2$lower & dt$seconds <= b2$upper])
  # The fence values are kept (inclusive), anything beyond is not.
  y <- c(10, 10, 10, 10, 20, 20, 20, 20)   # q1 = 10, q3 = 20, fences -5 and 35
  kept <- tukey_filter(data.table(id = 1L, seconds = c(y, 35, 35.000001, -5, -5.000001)))
  expect_equal(sort(kept$seconds), sort(c(y, 35, -5)))
})

test_that("tukey_filter drops a spike and keeps every other value, each group on its own", {
  dt <- data.table(id = rep(1:2, each = 10L),
                   seconds = c(1:9, 100, 101:109, 1000))
  kept <- tukey_filter(dt)
  expect_equal(kept[id == 1L, seconds], as.numeric(1:9))
  expect_equal(kept[id == 2L, seconds], as.numeric(101:109))
  # Groups by several columns; the result is sorted and keyed.
  dt <- data.table(run = c(2L, 2L, 1L, 1L, 1L, 1L, 1L), id = c(1L, 1L, 1L, 1L, 1L, 1L, 1L),
                   seconds = c(5, 4, 1, 1, 1, 1, 9))
  kept <- tukey_filter(dt, "seconds", c("run", "id"))
  expect_equal(kept$run, c(1L, 1L, 1L, 1L, 2L, 2L))
  expect_equal(kept$seconds, c(1, 1, 1, 1, 4, 5))
  expect_equal(key(kept), c("run", "id", "seconds"))
})

test_that("tukey_filter of an empty table is empty, of one value is that value", {
  expect_equal(nrow(tukey_filter(data.table(id = integer(), seconds = numeric()))), 0L)
  expect_equal(tukey_filter(data.table(id = 4L, seconds = 2.5))$seconds, 2.5)
})

test_that("tukey_medians_sorted: the median and count of the kept values, bit for bit", {
  set.seed(31)
  x <- data.table(id = rep(1:300, times = sample(3:60, 300, replace = TRUE)))
  x[, seconds := rlnorm(.N, -11, 0.2) * ifelse(runif(.N) < 0.05, 5, 1)]   # with outliers
  sg <- sorted_groups(x, "seconds", "id")
  kept <- tukey_medians_sorted(sg)
  filtered <- tukey_filter(x)
  expect_identical(kept$n, filtered[, .N, keyby = id]$N)
  expect_identical(kept$median, filtered[, median(seconds), keyby = id]$V1)
})

test_that("tukey_medians (C) gives tukey_medians_sorted's values, bit for bit, in any row order", {
  set.seed(32)
  for (digits in c(2, 12)) {   # with many ties, and with none
    x <- data.table(id = rep(sample(0:999, 400), times = sample(c(1:12, 50, 65, 200), 400, replace = TRUE)))
    x[, seconds := signif(rlnorm(.N, -11, 0.2) * ifelse(runif(.N) < 0.05, 5, 1), digits)]
    x <- x[sample(.N)]
    sg <- sorted_groups(x, "seconds", "id")
    kept <- tukey_medians_sorted(sg)
    got <- tukey_medians(x$id, x$seconds)
    expect_identical(got$id, sort(unique(x$id)))
    expect_identical(got$n, kept$n)
    expect_identical(got$median, kept$median)
  }
})

test_that("tukey_medians of no rows is empty; a negative or missing id is an error", {
  expect_identical(nrow(tukey_medians(integer(), numeric())), 0L)
  expect_error(tukey_medians(c(1L, NA), c(1, 2)), "not an experiment id")
  expect_error(tukey_medians(-1L, 1), "not an experiment id")
})

test_that("without its C library, tukey_medians warns once and gives the same values from R", {
  set.seed(33)
  x <- data.table(id = rep(sample(0:99, 40), times = sample(c(1:9, 50), 40, replace = TRUE)))
  x[, seconds := signif(rlnorm(.N, -11, 0.2), 3)]
  with_c <- tukey_medians(x$id, x$seconds)
  root <- tempfile("no-native-")
  dir.create(file.path(root, "analyze", "native"), recursive = TRUE)
  writeLines("this is not C", file.path(root, "analyze", "native", "tukey_medians.c"))
  expect_warning(expect_null(native_library(root)), "cannot be compiled.*same results")
  expect_silent(expect_null(native_library(root)))   # once
  saved_root <- Sys.getenv("NBH_ROOT")
  Sys.setenv(NBH_ROOT = root)
  on.exit(Sys.setenv(NBH_ROOT = saved_root))
  expect_silent(without_c <- tukey_medians(x$id, x$seconds))
  expect_identical(without_c, with_c)
})

test_that("the round medians in C equal round_medians_tukey, rows in round order or shuffled, groups short and long", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  set.seed(4)
  for (trial in 1:30) {
    ids <- sample(0:40, sample(1:20, 1))
    blocks <- sample(c(1:10, 40), 1)
    reps <- sample(c(1:6, 20), 1)    # a round's repetitions: up to 800 rows an experiment
    rows <- rbindlist(lapply(seq_len(blocks), function(r) data.table(id = rep(sample(ids), each = reps), round = r)))
    rows[, seconds := round(rlnorm(.N, -10, 0.3), sample(c(6, 12), 1))]   # ties too
    if (trial %% 3 == 0) rows <- rows[sample(.N)]
    expect_identical(call_native("nbh_round_medians", rows$id, rows$round, rows$seconds),
                     round_medians_tukey(rows$id, rows$round, rows$seconds))
  }
})

test_that("each experiment's times come out sorted whatever their values (buckets before the insertion sort)", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  set.seed(34)
  draws <- list(
    function(n) rlnorm(n, -11, 0.05),                                        # the bulk alone
    function(n) rlnorm(n, -11, 0.05) * ifelse(runif(n) < 0.1, 10, 1),         # slow outliers
    function(n) signif(rlnorm(n, -11, 0.2), 2),                               # many ties
    function(n) rep(3e-6, n),                                                 # one value
    function(n) c(rep(1, n - 2L), 0, 1e300),                                  # one far value each way
    function(n) c(rnorm(n - 2L), Inf, -Inf),                                  # infinite times
    function(n) rnorm(n) * 10^sample(-300:300, n, TRUE))                      # any scale, negative too
  for (draw in draws) {
    sizes <- c(15L, 16L, 17L, 50L, 333L, 1024L, 1025L)
    id <- rep(seq_along(sizes) - 1L, sizes)
    x <- unlist(lapply(sizes, draw))
    got <- call_native("nbh_tukey_medians", id, x, NULL, 0)
    expect_identical(got$values, unlist(lapply(split(x, id), sort), use.names = FALSE))
  }
})
