# The results files read ahead while R starts (analyze/native/read_ahead.c,
# analyze/input/read_ahead.R): the workers take them only where reading
# them again would give the same, and then it is the same.

# reduce_runs's medians, round units and cell percentiles, in plain R values.
reduced <- function(medians) {
  list(medians = lapply(medians, identity), rounds = attr(medians, "rounds"),
       percentiles = lapply(cell_percentiles(medians), identity))
}

test_that("the runs read ahead give what the workers' own reading gives, and the workers take them", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  skip_if(parallel::detectCores() < 2L, "one CPU: nothing is read ahead")
  dir <- planted_archive(blocks = 5L, phase_sd = 0.5, work_column = TRUE, nrun = 3L)
  files <- sort(list.files(file.path(dir, "results"), pattern = "\\.results\\.csv$", full.names = TRUE))
  # one run not clean: the reader leaves it, and read_results says what is wrong with it
  spoil_time(files[2])
  inputs <- reduce_inputs(dir)
  archives <- inputs$archives
  frame <- inputs$frame
  w_read <- warnings_of(read <- reduce_runs(archives, frame, cores = 2L))
  expect_identical(call_native("nbh_read_ahead", dir), length(files))
  expect_identical(call_native("nbh_read_ahead", dir), 0L)   # one at a time
  expect_identical(call_native("nbh_read_ahead_tally", TRUE), c(read = length(files) - 1L, taken = 0L))
  w_ahead <- warnings_of(ahead <- reduce_runs(archives, frame, cores = 2L))
  expect_identical(call_native("nbh_read_ahead_end"), c(read = length(files) - 1L, taken = length(files) - 1L))
  expect_identical(w_ahead, w_read)
  expect_match(w_read[1], "malformed row")
  expect_identical(reduced(ahead), reduced(read))
  expect_identical(call_native("nbh_read_ahead_tally", FALSE), c(read = 0L, taken = 0L))   # over
})

test_that("runs without rounds (kernels before them) are read ahead too", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  skip_if(parallel::detectCores() < 2L, "one CPU: nothing is read ahead")
  dir <- planted_archive(nrun = 2L)
  expect_false(grepl("round", readLines(list.files(file.path(dir, "results"), full.names = TRUE)[1], 1L)))
  inputs <- reduce_inputs(dir)
  archives <- inputs$archives
  frame <- inputs$frame
  read <- reduce_runs(archives, frame, cores = 2L)
  expect_identical(call_native("nbh_read_ahead", dir), 4L)
  expect_identical(call_native("nbh_read_ahead_tally", TRUE)[["read"]], 4L)
  ahead <- reduce_runs(archives, frame, cores = 2L)
  expect_identical(call_native("nbh_read_ahead_end"), c(read = 4L, taken = 4L))
  expect_null(attr(ahead, "rounds"))
  expect_identical(reduced(ahead), reduced(read))
})

test_that("a run is not taken from the reader where its archive's experiments differ from what the reader read", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  skip_if(parallel::detectCores() < 2L, "one CPU: nothing is read ahead")
  dir <- planted_archive(blocks = 5L, work_column = TRUE, nrun = 2L)
  inputs <- reduce_inputs(dir)
  archives <- inputs$archives
  frame <- inputs$frame
  read <- reduce_runs(archives, frame, cores = 1L)
  expect_identical(call_native("nbh_read_ahead", dir), 4L)
  expect_identical(call_native("nbh_read_ahead_tally", TRUE)[["read"]], 4L)
  # the archive as R sees it has one experiment fewer rounds: its slots are not the reader's
  changed <- archives
  changed[[1]]$experiments$blocks[1] <- 1L
  file <- file.path(dir, "results", paste0(frame$runs$run_id[1], ".results.csv"))
  ex <- changed[[1]]$experiments
  expect_null(call_native("nbh_read_run_medians", file, nrep_of_id(ex), blocks_of_id(ex), NULL, 0, NULL))
  store <- call_native("nbh_store_new", 1e6)
  expect_null(call_native("nbh_read_run_medians", file, nrep_of_id(ex), blocks_of_id(ex), store, 0, 5e5))
  expect_identical(call_native("nbh_read_ahead_tally", FALSE)[["taken"]], 0L)
  # as the reader read it, but no store to take it into: read again, not counted as taken
  ex <- archives[[1]]$experiments
  expect_false(is.null(call_native("nbh_read_run_medians", file, nrep_of_id(ex), blocks_of_id(ex), NULL, 0, NULL)))
  expect_identical(call_native("nbh_read_ahead_tally", FALSE)[["taken"]], 0L)
  # as the reader read it: taken, and the same
  ahead <- reduce_runs(archives, frame, cores = 1L)
  expect_identical(call_native("nbh_read_ahead_end")[["taken"]], 4L)
  expect_identical(reduced(ahead), reduced(read))
})

test_that("an experiments.csv the reader does not follow, or no archive, starts no reader", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  skip_if(parallel::detectCores() < 2L, "one CPU: nothing is read ahead")
  dir <- planted_archive(blocks = 5L, work_column = TRUE, nrun = 2L)
  experiments <- file.path(dir, "experiments.csv")
  Sys.chmod(experiments, "644")
  lines <- readLines(experiments)
  writeLines(c(lines[1], sub(",", ",\"", lines[2]), lines[-(1:2)]), experiments)   # a quote
  expect_identical(call_native("nbh_read_ahead", dir), 0L)
  expect_identical(call_native("nbh_read_ahead", file.path(dir, "no-such-archive")), 0L)
  expect_identical(call_native("nbh_read_ahead_end"), c(read = 0L, taken = 0L))
})

test_that("main.R reads ahead only with a compiled library and two cores for the analysis", {
  dir <- planted_archive(blocks = 5L, work_column = TRUE, nrun = 2L)
  with_cores <- function(value, expr) {
    old <- Sys.getenv("NBH_ANALYZE_CORES", NA)
    on.exit(if (is.na(old)) Sys.unsetenv("NBH_ANALYZE_CORES") else Sys.setenv(NBH_ANALYZE_CORES = old))
    Sys.setenv(NBH_ANALYZE_CORES = value)
    expr
  }
  expect_identical(with_cores("1", read_ahead(dir, nbh_root)), 0L)
  expect_identical(read_ahead(character(), nbh_root), 0L)
  expect_identical(read_ahead(dir, tempfile("root-")), 0L)   # no analyzer there, nor its library
  skip_if(is.null(native_library()) || parallel::detectCores() < 2L, "nothing is read ahead here")
  expect_identical(with_cores("2", read_ahead(dir, nbh_root)), 4L)
  expect_identical(call_native("nbh_read_ahead_tally", TRUE)[["read"]], 4L)
  expect_identical(call_native("nbh_read_ahead_end"), c(read = 4L, taken = 0L))
})
