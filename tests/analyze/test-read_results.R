experiments <- data.table(id = 1:3, nrep = 3L)
complete <- c("id,rep,seconds", "1,0,1.0e-05", "1,1,1.1e-05", "1,2,1.2e-05", "2,0,2.0e-05", "2,1,2.1e-05",
              "2,2,2.2e-05", "3,0,3.0e-05", "3,1,3.1e-05", "3,2,3.2e-05")
results_file <- function(lines, newline = TRUE) {
  f <- tempfile(fileext = ".results.csv")
  writeBin(charToRaw(paste0(paste(lines, collapse = "\n"), if (newline) "\n")), f)
  f
}

test_that("a complete file gives every measurement, without warnings", {
  w <- warnings_of(x <- read_results(results_file(complete), "r1", experiments))
  expect_length(w, 0L)
  expect_equal(names(x), c("id", "seconds"))
  expect_equal(x$id, rep(1:3, each = 3L))
  expect_equal(x$seconds[9], 3.2e-05)
})

test_that("a missing or empty results file is a run without results, with a warning naming it", {
  w <- warnings_of(x <- read_results(file.path(tempdir(), "none.results.csv"), "1x4-default-r003", experiments))
  expect_equal(nrow(x), 0L)
  expect_match(w, "^run 1x4-default-r003: no results file")
  f <- tempfile()
  file.create(f)
  w <- warnings_of(x <- read_results(f, "1x4-default-r004", experiments))
  expect_equal(nrow(x), 0L)
  expect_match(w, "^run 1x4-default-r004: results file .* is empty")
  # A header alone: no experiment finished; no rows, no warning here.
  w <- warnings_of(x <- read_results(results_file("id,rep,seconds"), "r", experiments))
  expect_equal(nrow(x), 0L)
  expect_length(w, 0L)
})

test_that("a cut last line is dropped, and its experiment with it", {
  # 3.2e-05 cut to 3.2 would be a 100000 times slower repetition.
  for (cut in c("3,2,3.2", "3,2,3.2e-", "3,2", "3,")) {
    w <- warnings_of(x <- read_results(results_file(c(complete[-10], cut), newline = FALSE), "r7", experiments))
    expect_equal(x$id, rep(1:2, each = 3L))
    expect_match(w[1], "^run r7: results file .* ends in a cut line")
    expect_match(w[2], "^run r7: experiment\\(s\\) 3 have another number of rows than their nrep")
  }
})

test_that("malformed rows and incomplete experiments are left out with warnings", {
  lines <- complete
  lines[6] <- "2,1,abc"
  w <- warnings_of(x <- read_results(results_file(lines), "r2", experiments))
  expect_equal(unique(x$id), c(1L, 3L))
  expect_match(w[1], "^run r2: results file .* has 1 malformed row")
  lines <- complete
  lines[3] <- "1,1"
  lines[9] <- "3,1,-1"
  w <- warnings_of(x <- read_results(results_file(lines), "r3", experiments))
  expect_equal(unique(x$id), 2L)
  expect_match(w[1], "has 2 malformed row")
  expect_match(w[2], "experiment\\(s\\) 1, 3 have another number of rows")
})

test_that("rows of unknown experiments and duplicated experiments are left out", {
  w <- warnings_of(x <- read_results(results_file(c(complete, "9,0,1e-05", complete[2:4])), "r4", experiments))
  expect_equal(unique(x$id), 2:3)
  expect_match(w[1], "^run r4: rows of experiment id\\(s\\) 9 that experiments.csv does not have")
  expect_match(w[2], "experiment\\(s\\) 1 have another number of rows")
})

test_that("a busy work time that is NaN, text or negative is a malformed row, as the same in seconds is", {
  with_work <- c("id,rep,seconds,work_seconds", paste0(complete[-1], ",", c(0, 0, 0, 2e-06, 2e-06, 2e-06, 0, 0, 0)))
  w <- warnings_of(x <- read_results(results_file(with_work), "r5", experiments))
  expect_length(w, 0L)
  expect_equal(names(x), c("id", "seconds"))
  expect_equal(x$seconds, c(1, 1.1, 1.2, 2, 2.1, 2.2, 3, 3.1, 3.2) * 1e-05)
  for (damage in c("NaN", "abc", "-2e-06", "Inf", "")) {
    for (column in c("seconds", "work_seconds")) {
      lines <- with_work
      fields <- strsplit(lines[6], ",")[[1]]   # experiment 2, rep 1
      fields[if (column == "seconds") 3L else 4L] <- damage
      lines[6] <- paste(fields, collapse = ",")
      w <- warnings_of(x <- read_results(results_file(lines), "r6", experiments))
      label <- paste(column, damage)
      expect_equal(unique(x$id), c(1L, 3L), label = label)
      expect_length(w, 2L)
      expect_match(w[1], "^run r6: results file .* has 1 malformed row\\(s\\).*; they are left out$", label = label)
      expect_match(w[2], "^run r6: experiment\\(s\\) 2 have another number of rows than their nrep", label = label)
    }
  }
})

test_that("with rounds: every round of an experiment must be there; a clock round may keep fewer rows", {
  rounded <- data.table(id = 1:2, nrep = 4L, blocks = 2L, sync = c("barrier", "clock"))
  lines <- c("id,rep,round,seconds,work_seconds", "1,0,1,1.0e-05,0", "1,1,1,1.1e-05,0", "2,0,1,2.0e-05,0",
             "2,1,1,2.1e-05,0", "1,2,2,1.2e-05,0", "1,3,2,1.3e-05,0", "2,2,2,2.2e-05,0")
  # experiment 2 kept 1 of its 2 repetitions in round 2 (a clock start): the archive checked it
  w <- warnings_of(x <- read_results(results_file(lines), "r1", rounded))
  expect_length(w, 0L)
  expect_equal(names(x), c("id", "round", "seconds"))
  expect_equal(x[, .N, keyby = .(id, round)]$N, c(2L, 2L, 2L, 1L))
  # a round missing: the experiment is left out, with a warning
  w <- warnings_of(x <- read_results(results_file(lines[-(6:7)]), "r1", rounded))
  expect_match(w, "run r1: experiment\\(s\\) 1 lack a round of their blocks or have rows beyond them; left out")
  expect_equal(unique(x$id), 2L)
  # the round medians: the Tukey median of each round
  m <- round_summary(x$id, x$round, x$seconds)
  expect_equal(m$median, c(2.05e-05, 2.2e-05))
  expect_equal(round_medians_tukey(x$id, x$round, x$seconds), m)
})

test_that("with rounds: rows fewer or more than nrep say so and are left out, unless the clock kept fewer", {
  # experiments.csv says nrep 12 in 3 rounds, the results hold 10 repetitions
  # of every experiment (4, 3, 3: what nrep 10 gives); before the rounds this
  # was refused as "another number of rows than their nrep", so it is again
  lines <- c("id,rep,round,seconds", unlist(lapply(1:2, function(i) {
    sprintf("%d,%d,%d,%.1e", i, 0:9, rep(1:3, c(4L, 3L, 3L)), i * 1e-05 + (0:9) * 1e-07)
  })))
  twelve <- data.table(id = 1:2, nrep = 12L, blocks = 3L)
  w <- warnings_of(x <- read_results(results_file(lines), "r9", twelve))
  expect_equal(nrow(x), 0L)
  expect_length(w, 1L)
  expect_match(w, paste0("^run r9: experiment\\(s\\) 1, 2 have another number of rows than their nrep in ",
                         "experiments.csv \\(experiment 1: 10 rows for nrep 12 in 3 round\\(s\\)\\); left out$"))
  # the same on the clock: a clock start may keep fewer (the archive checked it against the kernel's count)
  w <- warnings_of(x <- read_results(results_file(lines), "r9", twelve[, sync := "clock"]))
  expect_length(w, 0L)
  expect_equal(nrow(x), 20L)
  # more rows than a round's share is wrong on the clock too
  w <- warnings_of(x <- read_results(results_file(lines), "r9", data.table(id = 1:2, nrep = 8L, blocks = 3L,
                                                                           sync = "clock")))
  expect_equal(nrow(x), 0L)
  expect_match(w, "experiment\\(s\\) 1, 2 have another number of rows than their nrep")
  # and nrep 10: every round its share, no word
  w <- warnings_of(x <- read_results(results_file(lines), "r9", data.table(id = 1:2, nrep = 10L, blocks = 3L)))
  expect_length(w, 0L)
  expect_equal(nrow(x), 20L)
})

test_that("an archive with rounds whose experiments.csv says nrep 12 while its runs hold 10 is refused, saying so", {
  dir <- planted_archive(nrun = 3L, blocks = 3L)   # nrep 20 in 3 rounds
  experiments <- fread(file.path(dir, "experiments.csv"))
  fwrite(experiments[, nrep := 24L], file.path(dir, "experiments.csv"))
  w <- warnings_of(e <- tryCatch(analyze_archives(dir, root = nbh_root), nbh_input_error = function(e) e))
  expect_s3_class(e, "nbh_input_error")
  expect_match(conditionMessage(e), "^nothing to assess: no measurement of .* is left after the checks")
  expect_length(w, 6L)   # one per run and deployment, nothing else
  expect_true(all(grepl("have another number of rows than their nrep in experiments.csv \\(experiment [0-9]+: 20 rows for nrep 24 in 3 round\\(s\\)\\); left out$", w)))
})
