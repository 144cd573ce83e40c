# The whole analysis on synthetic archives that are incomplete, broken, or
# several at once. test-planted_violations.R checks the verdicts themselves.

copy_archive <- function(dir) {
  to <- tempfile("copy-")
  dir.create(to)
  file.copy(dir, to, recursive = TRUE)
  file.path(to, basename(dir))
}
archive <- planted_archive()
result_file <- function(dir, run) file.path(dir, "results", paste0(run, ".results.csv"))
violations_of <- function(result) test_table(result)[violated == TRUE, .(tag, library, deployment, msize)]

test_that("a run without results is analysed without it, with a warning naming it", {
  dir <- copy_archive(archive)
  unlink(result_file(dir, "1x4-default-r003"))
  w <- warnings_of(result <- analyze_archives(dir, root = nbh_root))
  expect_equal(w, paste0("run 1x4-default-r003: no results file (", result_file(dir, "1x4-default-r003"),
                         "; state done); analysed without this run"))
  tt <- test_table(result)
  expect_equal(unique(tt[deployment == "1x4", c(runs_a, runs_b)]), 7L)
  expect_equal(unique(tt[deployment == "2x4", c(runs_a, runs_b)]), 8L)
  expect_equal(nrow(violations_of(result)), 3L)   # 7 runs against 7 still give p = 1/3432
})

test_that("a truncated, an empty and a partial results file: warnings, and the rest is analysed", {
  dir <- copy_archive(archive)
  f <- result_file(dir, "2x4-default-r001")
  bytes <- readBin(f, "raw", file.size(f))
  writeBin(bytes[seq_len(length(bytes) - 7L)], f)             # cut inside the last line
  file.create(result_file(dir, "2x4-default-r002"))            # empty
  f3 <- result_file(dir, "2x4-default-r003")
  lines <- readLines(f3)
  writeLines(lines[seq_len(1L + 20L * 50L)], f3)               # header + the first 50 experiments
  runs <- fread(file.path(dir, "runs.csv"), na.strings = "")
  runs[run_id == "2x4-default-r003", `:=`(state = "timeout", experiments_done = 50L)]
  fwrite(runs, file.path(dir, "runs.csv"), na = "")
  w <- warnings_of(result <- analyze_archives(dir, root = nbh_root))
  expect_match(w, "run 2x4-default-r001: results file .* ends in a cut line", all = FALSE)
  expect_match(w, "run 2x4-default-r001: experiment\\(s\\) [0-9]+ have another number of rows", all = FALSE)
  expect_match(w, "run 2x4-default-r001: results for 95 of 96 experiments \\(state done\\)", all = FALSE)
  expect_match(w, "run 2x4-default-r002: results file .* is empty", all = FALSE)
  expect_match(w, "run 2x4-default-r003: results for 50 of 96 experiments \\(state timeout\\)", all = FALSE)
  expect_equal(result$medians[, uniqueN(run)], 15L)
  tt <- test_table(result)
  # 8 runs, minus the empty one, minus r003 past its 50th experiment, minus r001 for the cut one
  expect_setequal(unique(tt[deployment == "2x4", c(runs_a, runs_b)]), 5:7)
})

test_that("results of a run that runs.csv does not list are ignored, with a warning", {
  dir <- copy_archive(archive)
  file.copy(result_file(dir, "1x4-default-r001"), result_file(dir, "9x9-default-r001"))
  w <- warnings_of(analyze_archives(dir, root = nbh_root))
  expect_match(w, "results of run\\(s\\) 9x9-default-r001 are not in runs.csv; ignored")
})

test_that("two libraries analysed together: library is a grouping parameter", {
  other <- planted_archive("mpich", planted = list(
    list(where = list(op = "neighbor_allgather", topology = "cart", nfin = 2, reorder = 1, msize = 256,
                      deployment = "2x4"), factor = 1.4)), seed = 11L)
  w <- warnings_of(result <- analyze_archives(c(archive, other), root = nbh_root))
  expect_length(w, 0L)
  s <- summary_table(result)
  expect_equal(nrow(s), 16L)
  # allgather on cart with reorder=1 is the a side of GL4, GL9 and GL12
  expect_equal(s[library == "mpich", sum(n_vio_tests)], 3L)
  expect_equal(s[library == "openmpi", sum(n_vio_tests)], 3L)
  expect_true(fsetequal(violations_of(result)[library == "mpich"],
                        data.table(tag = c("GL4", "GL9", "GL12"), library = "mpich", deployment = "2x4", msize = 256L)))
  # Each library is compared with itself only: tests double.
  expect_equal(nrow(test_table(result)), 640L)
})

test_that("a tiny archive: one deployment, 8 runs, few experiments", {
  dir <- file.path(tempfile("tiny-"), "tiny")
  ex <- synthetic_experiments("small", nrep = 5L)[topology == "cart" & nfin == 0L & msize %in% c(256L, 4096L)]
  write_synthetic_archive(dir, ex, deployments = "1x2", nrun = 8L, inputs = FALSE,
                          planted = list(list(where = list(op = "neighbor_allgather", msize = 4096, reorder = 1), factor = 2)),
                          assessment = c("[ops]", "parameter = op", "varied = msize", "neighbor_allgather <= neighbor_alltoall",
                                         "[reorder]", "parameter = reorder", "varied = msize", "1 <= 0"))
  result <- analyze_archives(dir, root = nbh_root)
  tt <- test_table(result)
  expect_equal(nrow(tt), 8L)
  expect_equal(tt[violated == TRUE, .(guideline_no, msize, reorder)],
               data.table(guideline_no = 1:2, msize = 4096L, reorder = c(1L, NA)))
})

test_that("assessment errors name the parameter, the level, or what to fix, before reading results", {
  bad <- function(...) {
    f <- tempfile(fileext = ".conf")
    writeLines(c(...), f)
    f
  }
  expect_error(analyze_archives(archive, bad("[s]", "parameter = op", "varied = msize", "GL4: op=neighbor_allgather,colour=red <= neighbor_alltoall"), root = nbh_root),
               "'colour' is not a parameter of the archives", class = "nbh_input_error")
  expect_error(analyze_archives(archive, bad("[s]", "parameter = op", "varied = msize", "GL4: neighbor_allgather <= neighbor_alltoallw"), root = nbh_root),
               "level 'neighbor_alltoallw' of parameter op is not in the archives", class = "nbh_input_error")
  expect_error(analyze_archives(archive, bad("[s]", "parameter = topology", "varied = msize", "GL9: cart <= vneum,constructor=dist_graph_adjacent"), root = nbh_root),
               "matches 2 cells of side b that differ in order; fix it", class = "nbh_input_error")
  # Sides that cannot meet: a warning saying why, and no tests.
  w <- warnings_of(result <- analyze_archives(archive, bad("[s]", "parameter = topology", "varied = msize", "GL9: cart <= vneum"), root = nbh_root))
  expect_match(w[1], "no cell of side a has a partner on side b \\(they never agree on constructor; fix it on a side\\)")
  expect_equal(nrow(result$tests), 0L)
  expect_equal(summary_table(result)[, .(n_tests, n_groups)], data.table(n_tests = 0L, n_groups = 0L))
  expect_error(analyze_archives(archive, bad("[s]", "parameter = colour", "varied = msize", "red <= blue"), root = nbh_root),
               "guideline parameter 'colour' is not a parameter", class = "nbh_input_error")
})

test_that("a broken archive is an error naming the file, line and column", {
  expect_error(analyze_archives(tempdir(), root = nbh_root), "not an archive \\(experiments.csv is missing\\)",
               class = "nbh_input_error")
  dir <- copy_archive(archive)
  ex <- fread(file.path(dir, "experiments.csv"), colClasses = "character", na.strings = "")
  fwrite(ex[, !"msize"], file.path(dir, "experiments.csv"), na = "")
  expect_error(analyze_archives(dir, root = nbh_root), "experiments.csv: column msize is missing", class = "nbh_input_error")
  ex[3, msize := "big"]
  fwrite(ex, file.path(dir, "experiments.csv"), na = "")
  expect_error(analyze_archives(dir, root = nbh_root), "experiments.csv:4: column msize: 'big' is not an integer",
               class = "nbh_input_error")
  ex[3, msize := ex$msize[4]]
  ex[3, reorder := ex$reorder[4]]
  fwrite(ex, file.path(dir, "experiments.csv"), na = "")
  expect_error(analyze_archives(dir, root = nbh_root), "experiments 3 and 2 have the same parameters|experiments 2 and 3 have the same parameters",
               class = "nbh_input_error")
  dir <- copy_archive(archive)
  runs <- fread(file.path(dir, "runs.csv"))
  fwrite(runs[, !"library"], file.path(dir, "runs.csv"))
  expect_error(analyze_archives(dir, root = nbh_root), "runs.csv: column library is missing", class = "nbh_input_error")
  dir <- copy_archive(archive)
  unlink(file.path(dir, "campaign", "assessment.conf"))
  expect_error(analyze_archives(dir, root = nbh_root), "no campaign/assessment.conf; name one with --assess FILE",
               class = "nbh_input_error")
})

test_that("runs reduced in parallel give the same medians and the same warnings, in run order", {
  dir <- copy_archive(archive)
  unlink(result_file(dir, "2x4-default-r005"))
  file.create(result_file(dir, "1x4-default-r002"))
  registry <- read_registry(nbh_root)
  params <- analysis_parameters(registry)
  archives <- list(read_archive(dir, registry))
  frame <- combine_archives(archives, params)
  w1 <- warnings_of(m1 <- reduce_runs(archives, frame, cores = 1L))
  w2 <- warnings_of(m2 <- reduce_runs(archives, frame, cores = 2L))
  # The sorted times too: each in its own value store, the same percentiles.
  expect_identical(cell_percentiles(m1), cell_percentiles(m2))
  setattr(m1, "values", NULL)
  setattr(m2, "values", NULL)
  expect_identical(m1, m2)
  expect_identical(w1, w2)
  expect_match(w1[1], "run 1x4-default-r002")
  expect_match(w1[2], "run 2x4-default-r005")
  expect_equal(nrow(m1), 96L * 14L)
  expect_equal(unique(m1$n), 20L)
  expect_true(all(m1$n_kept <= 20L & m1$n_kept >= 10L))
  expect_lt(mean(m1$n_kept), 20)    # the planted outliers are gone
})

test_that("the work queue gives every number once, across this process and its forks", {
  queue <- call_native("nbh_queue_new")
  expect_false(is.null(queue))
  take_all <- function() {
    got <- integer()
    while ((i <- call_native("nbh_queue_take", queue)) <= 200L) got <- c(got, i)
    got
  }
  forks <- lapply(1:2, function(k) parallel::mcparallel(take_all()))
  mine <- take_all()
  theirs <- parallel::mccollect(forks)
  expect_identical(sort(unname(c(mine, unlist(theirs)))), 1:200)
  expect_error(call_native("nbh_queue_take", "not a queue"), "not a queue")
})

test_that("in_background: f runs in a fork while this process goes on; its value or its error (with its class) come back", {
  pid <- Sys.getpid()
  started <- Sys.time()
  job <- in_background(function() {
    Sys.sleep(3)
    Sys.getpid()
  }, cores = 2L)
  # not waited for here: a fork returns long before the child's 3 s, even on a loaded machine
  expect_lt(as.numeric(Sys.time() - started, units = "secs"), 2)
  expect_false(job() == pid)
  expect_null(job())   # collected once
  failed <- in_background(function() output_error("x/run_medians.csv", ": No space left on device"), cores = 2L)
  expect_error(failed(), "^x/run_medians.csv: No space left on device$", class = "nbh_output_error")
  here <- in_background(function() Sys.getpid(), cores = 1L)   # one core: at once, in this process
  expect_identical(here(), pid)
  slow <- in_background(function() Sys.sleep(30), cores = 2L)
  slow(cancel = TRUE)   # stopped, not waited for
  expect_null(slow())
})

test_that("map_in_workers: the items taken in the order first, their values and warnings in item order", {
  f <- function(i) {
    taken <- proc.time()[["elapsed"]]   # the same clock in a fork (since R began)
    Sys.sleep(0.1)
    warning("item ", i)
    c(i, taken)
  }
  first <- c(5L, 3L, 6L, 1L, 4L, 2L)
  for (cores in 1:2) {
    notes <- character()
    out <- withCallingHandlers(map_in_workers(1:6, f, cores = cores, first = first), warning = function(w) {
      notes <<- c(notes, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
    expect_identical(vapply(out, `[`, 0, 1), as.numeric(1:6))
    expect_identical(notes, paste("item", 1:6))
    if (cores == 2L) {
      taken <- vapply(out, `[`, 0, 2)
      # with two workers, each item is taken no later than the one two places after it in first
      expect_true(all(taken[first[1:4]] <= taken[first[3:6]]))
    }
  }
})

test_that("map_in_workers: results and warnings in item order, errors with their class, meanwhile here first", {
  pid <- Sys.getpid()
  ran_here <- NULL
  f <- function(i) {
    # uneven items: the queue hands them out as workers are free; long
    # enough together (0.6 s) that a fork starting on a busy machine gets some
    Sys.sleep(if (i %% 3 == 0) 0.1 else 0.02)
    warning("item ", i)
    c(i, Sys.getpid())
  }
  notes <- character()
  out <- withCallingHandlers(map_in_workers(1:12, f, cores = 2L, meanwhile = function() ran_here <<- Sys.getpid()),
                             warning = function(w) {
                               notes <<- c(notes, conditionMessage(w))
                               invokeRestart("muffleWarning")
                             })
  expect_identical(vapply(out, `[`, 0, 1), as.numeric(1:12))
  expect_identical(notes, paste("item", 1:12))
  expect_identical(ran_here, pid)
  expect_true(any(vapply(out, `[`, 0, 2) != pid))   # a fork did some
  expect_error(suppressWarnings(map_in_workers(1:6, function(i) if (i == 5) input_error("bad item ", i) else i,
                                               cores = 2L)),
               "bad item 5", class = "nbh_input_error")
  expect_error(map_in_workers(1:6, function(i) i, cores = 2L, meanwhile = function() input_error("bad pairing")),
               "bad pairing", class = "nbh_input_error")
  parent_of <- function(proc) {
    # a process that ends meanwhile: its status is gone (an error, and a warning first)
    status <- tryCatch(suppressWarnings(readLines(file.path(proc, "status"), warn = FALSE)),
                       error = function(e) character())
    sub("^PPid:\\s*", "", grep("^PPid:", status, value = TRUE))
  }
  children <- function() {
    procs <- list.files("/proc", pattern = "^[0-9]+$", full.names = TRUE)
    sum(unlist(lapply(procs, parent_of)) == as.character(pid))
  }
  # no fork is left behind (one that is ending may take a moment to go)
  deadline <- Sys.time() + 5
  while (children() > 0 && Sys.time() < deadline) Sys.sleep(0.05)
  expect_equal(children(), 0)
})

test_that("runs.csv's interleave, slot and launch_order are read where there, empty where not", {
  registry <- read_registry(nbh_root)
  older <- read_archive(archive, registry)$runs
  expect_true(all(c("interleave", "slot", "launch_order") %in% names(older)))
  expect_true(all(is.na(older$interleave)) && all(is.na(older$slot)) && all(is.na(older$launch_order)))
  dir <- copy_archive(archive)
  runs <- fread(file.path(dir, "runs.csv"), colClasses = "character")
  runs[, `:=`(interleave = "c-20261129T000000Z-abcdef", slot = as.character((seq_len(.N) + 1L) %/% 2L),
              launch_order = as.character(rev(seq_len(.N))))]
  fwrite(runs, file.path(dir, "runs.csv"))
  newer <- read_archive(dir, registry)$runs
  expect_identical(newer$slot, (seq_len(nrow(newer)) + 1L) %/% 2L)
  expect_identical(newer$launch_order, rev(seq_len(nrow(newer))))
  expect_identical(unique(newer$interleave), "c-20261129T000000Z-abcdef")
  expect_equal(nrow(test_table(analyze_archives(dir, root = nbh_root))),
               nrow(test_table(analyze_archives(archive, root = nbh_root))))
})
