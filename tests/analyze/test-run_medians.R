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
  for (col in c("id", "n")) expect_identical(m[[col]], ref[[col]])
  # read in C, correctly rounded; fread's long double may differ in the last bit
  expect_equal(m$median, ref$median, tolerance = 1e-15)
  expect_equal(m$id, c(2L, 4L, 9L))
  expect_lt(m$n[2], 30L)     # the 9x value of experiment 4 is gone
})

# An archive of one run whose results file has the given lines (after
# the 4-column header unless header is given), experiments ids 0..n - 1 with nrep.
results_archive <- function(lines, nrep, header = "id,rep,seconds,work_seconds") {
  archive <- list(dir = tempfile("archive-"), experiments = data.table(id = seq_along(nrep) - 1L, nrep = nrep))
  dir.create(file.path(archive$dir, "results"), recursive = TRUE)
  archive$file <- file.path(archive$dir, "results", "r1.results.csv")
  writeLines(c(header, lines), archive$file)
  archive
}

test_that("a clean results file is read in C: every time the double nearest its decimal", {
  set.seed(41)
  n <- 2000
  mantissa <- sample(1e9:(1e10 - 1), n)          # the kernel's %.9e: 10 digits
  power <- sample(c(3:12, -1:0), n, replace = TRUE)
  kernel <- sprintf("%d.%se%s%02d", mantissa %/% 1e9, substring(sprintf("%010.0f", mantissa), 2),
                    ifelse(power > 0, "-", "+"), abs(power))
  nearest <- mantissa / 10^(power + 9)           # both exact: IEEE division rounds once
  doubles <- runif(300, 1e-7, 1e-2)              # 17 digits: beyond the fast path (strtod)
  other <- c("0.0000123", "12e-6", "1.5E+00", "7", "0.5e-3", "000.25", "0.1000000000000000000000001", "5.")
  other_value <- c(1.23e-5, 12e-6, 1.5, 7, 0.5e-3, 0.25, 0.1, 5)
  times <- c(kernel, sprintf("%.17g", doubles), other)
  archive <- results_archive(sprintf("%d,0,%s,%s", seq_along(times) - 1L, times, rev(times)), rep(1L, length(times)))
  expect_false(is.null(call_native("nbh_read_run_medians", archive$file, nrep_of_id(archive$experiments),
                                   blocks_of_id(archive$experiments), NULL, 0, NULL)))
  m <- reduce_run(list(run_id = "r1", state = "done"), archive)   # nrep 1: the median is the time
  expect_identical(m$id, seq_along(times) - 1L)
  expect_identical(m$median, c(nearest, doubles, other_value))
  expect_identical(m$n, rep(1L, length(times)))
})

test_that("a results file that is not clean is left to read_results, which says what is wrong", {
  good <- c("0,0,1.000000000e-05,0", "0,1,2.000000000e-05,0", "1,0,3.000000000e-05,0")
  nrep <- c(2L, 1L)
  native <- function(a) {
    call_native("nbh_read_run_medians", a$file, nrep_of_id(a$experiments), blocks_of_id(a$experiments), NULL, 0, NULL)
  }
  expect_false(is.null(native(results_archive(good, nrep))))
  expect_false(is.null(native(results_archive(sub(",0$", "", good), nrep, "id,rep,seconds"))))
  # inputs with an arrival pattern: the slowest process's delay after the work
  delayed <- results_archive(paste0(good, ",2.5e-04"), nrep, "id,rep,seconds,work_seconds,delay_seconds")
  expect_identical(native(delayed), native(results_archive(good, nrep)))
  unclean <- list(
    "a delay column without its value" = results_archive(good, nrep, "id,rep,seconds,work_seconds,delay_seconds"),
    "another header" = results_archive(good, nrep, "id,repetition,seconds,work_seconds"),
    "no header" = results_archive(good[-1], nrep, character()),
    "header only" = results_archive(character(), nrep),
    "a zero time" = results_archive(c(good[-3], "1,0,0,0"), nrep),
    "a negative time" = results_archive(c(good[-3], "1,0,-3e-05,0"), nrep),
    "an infinite time" = results_archive(c(good[-3], "1,0,1e400,0"), nrep),
    "NA" = results_archive(c(good[-3], "1,0,NA,0"), nrep),
    "a busy work of NaN" = results_archive(c(good[-3], "1,0,3e-05,NaN"), nrep),
    "a busy work in words" = results_archive(c(good[-3], "1,0,3e-05,abc"), nrep),
    "a negative busy work" = results_archive(c(good[-3], "1,0,3e-05,-2e-06"), nrep),
    "an infinite busy work" = results_archive(c(good[-3], "1,0,3e-05,1e400"), nrep),
    "a missing field" = results_archive(c(good[-3], "1,0,3e-05"), nrep),
    "an extra field" = results_archive(c(good[-3], "1,0,3e-05,0,9"), nrep),
    "a space" = results_archive(c(good[-3], "1,0, 3e-05,0"), nrep),
    "a letter among the digits" = results_archive(c(good[-3], "1,0,3.0000a0000e-05,0"), nrep),
    "a colon among the digits" = results_archive(c(good[-3], "1,0,3.0000:0000e-05,0"), nrep),
    "a slash among the digits" = results_archive(c(good[-3], "1,0,3.0000/0000e-05,0"), nrep),
    "CRLF" = results_archive(paste0(good, "\r"), nrep),
    "an unknown experiment" = results_archive(c(good, "2,0,3e-05,0"), nrep),
    "too few rows" = results_archive(good[-2], nrep),
    "too many rows" = results_archive(c(good, "0,2,4e-05,0"), nrep))
  for (what in names(unclean)) expect_null(native(unclean[[what]]), label = what)
  cut <- results_archive(good, nrep)
  cat("1,1,4.0000", file = cut$file, append = TRUE)   # no newline: a cut line
  expect_null(native(cut))
  expect_warning(m <- reduce_run(list(run_id = "r1", state = "done"), cut), "cut line")
  expect_equal(m$median, c(1.5e-05, 3e-05))
  expect_warning(reduce_run(list(run_id = "r1", state = "done"), unclean[["a zero time"]]), "malformed")
  # Damage in the busy work is treated as in the time: the row left out, with a warning.
  for (what in c("a busy work of NaN", "a busy work in words", "a negative busy work", "an infinite busy work")) {
    w <- warnings_of(m <- reduce_run(list(run_id = "r1", state = "done"), unclean[[what]]))
    expect_match(w[1], "^run r1: results file .* has 1 malformed row", label = what)
    expect_equal(m$id, 0L, label = what)
  }
  expect_warning(reduce_run(list(run_id = "r1", state = "done"), unclean[["too few rows"]]), "another number of rows")
  missing <- list(dir = tempfile(), experiments = data.table(id = 0L, nrep = 1L))
  expect_null(call_native("nbh_read_run_medians", file.path(missing$dir, "r1.results.csv"), 1L, 1L, NULL, 0, NULL))
  expect_warning(reduce_run(list(run_id = "r1", state = "done"), missing), "no results file")
})

test_that("a clean file's round medians, as a list or in the value store, are round_medians_tukey's", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  set.seed(43)
  # nrep 7 in 3 rounds (3, 2, 2), 20 in 4, 1 in 1, 47 in 6 (8 and 7), 9 in 1 and 12 in 2: rounds of
  # every size up to 9 (up to 8 sorted by a network); id 2 has none; rows shuffled
  ex <- data.table(id = c(0L, 1L, 3L, 4L, 5L, 6L), nrep = c(7L, 20L, 1L, 47L, 9L, 12L),
                   blocks = c(3L, 4L, 1L, 6L, 1L, 2L))
  share <- function(nrep, blocks) nrep %/% blocks + (seq_len(blocks) <= nrep %% blocks)   # kernel/rounds.c
  rows <- ex[, .(rep = seq_len(nrep) - 1L, round = rep(seq_len(blocks), share(nrep, blocks))), by = id]
  rows[, seconds := round(rlnorm(.N, -11, 0.2) * (1 + 9 * (runif(.N) < 0.1)), 12)]   # outliers, ties
  rows <- rows[sample(.N)]
  archive <- results_archive(sprintf("%d,%d,%d,%.12g,0", rows$id, rows$rep, rows$round, rows$seconds), ex$nrep,
                             "id,rep,round,seconds,work_seconds")
  archive$experiments <- ex
  nrep <- nrep_of_id(ex)
  blocks <- blocks_of_id(ex)
  x <- fread(archive$file)
  want <- round_medians_tukey(x$id, x$round, x$seconds)
  listed <- call_native("nbh_read_run_medians", archive$file, nrep, blocks, NULL, 0, NULL)$rounds
  expect_identical(listed, want)
  # in the store: after the run's times, one slot per (id, round) of the archive, NA where the run has none
  slots <- round_slots(nrep, blocks)
  expect_identical(slots$id, rep(ex$id, ex$blocks))
  times <- sum(ex$nrep)
  store <- call_native("nbh_store_new", 2 + times + length(slots$id))
  m <- call_native("nbh_read_run_medians", archive$file, nrep, blocks, store, 2, 2 + times)
  expect_true(m$rounds)
  stored <- round_unit_table(integer(), integer(), integer(), numeric(),
                             stored = list(store = store, offset = 2 + times, layout = 1L,
                                           slot_cell = list(slots$id + 1L), slot_round = list(slots$round), run = 1L))
  expect_identical(stored$times$median, want$median)
  expect_identical(stored$times$cell, want$id + 1L)
  expect_identical(stored$index$index$round, unique(sort(want$round)))
  expect_identical(m[c("id", "median", "n")],
                   call_native("nbh_read_run_medians", archive$file, nrep, blocks, NULL, 0, NULL)[c("id", "median", "n")])
})
