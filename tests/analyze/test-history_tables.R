# What the results history takes of an analysis (analyze/output/history_tables.R):
# cells.csv, run_medians.csv, archives.csv, analysis.json; and where the
# report's History section goes (history_report.R).

archive <- planted_archive()
result <- analyze_archives(archive, root = nbh_root)
dir <- tempfile("history-tables-")
write_outputs(result, list(out = dir, plots = FALSE, created = "now", version = "test"))

test_that("cells.csv: every cell, its parameters, runs, median of run medians and percentiles", {
  cells <- fread(file.path(dir, "cells.csv"), na.strings = "")
  params <- result$params$name
  expect_equal(names(cells), c("cell", params, "runs", "median_us", "p50_us", "p90_us", "p99_us"))
  expect_equal(nrow(cells), nrow(result$frame$cells))
  medians <- result$medians[, .(median = median(median) * 1e6, runs = .N), keyby = cell]
  expect_equal(cells$median_us, medians[J(cells$cell), median], tolerance = 1e-12)
  expect_equal(cells$runs, medians[J(cells$cell), runs])
  percentiles <- fread(file.path(dir, "percentiles.csv"), na.strings = "")
  expect_equal(sort(cells$p99_us), sort(percentiles$p99_us), tolerance = 1e-12)
})

test_that("run_medians.csv: one row per cell and run, the run's median in microseconds", {
  runs <- fread(file.path(dir, "run_medians.csv"), na.strings = "")
  expect_equal(names(runs), c("cell", "archive", "run_id", "median_us", "p90_us", "p99_us", "n", "n_kept"))
  expect_equal(nrow(runs), nrow(result$medians))
  expect_equal(unique(runs$archive), basename(normalizePath(archive)))
  one <- runs[cell == 1L]
  key <- result$frame$runs[match(one$run_id, run_id), run_key]
  expect_equal(one$median_us, result$medians[cell == 1L][match(key, run), median] * 1e6, tolerance = 1e-12)
  expect_true(all(runs$n_kept <= runs$n & runs$p90_us <= runs$p99_us))
})

test_that("archives.csv and analysis.json: the archives, the thresholds and the assessment", {
  a <- fread(file.path(dir, "archives.csv"))
  expect_equal(a$directory, normalizePath(archive))
  info <- jsonlite::fromJSON(file.path(dir, "analysis.json"))
  expect_equal(info[c("p_thres", "v_thres", "adjust", "version")],
               list(p_thres = 0.001, v_thres = 1.03, adjust = "none", version = "test"))
  expect_match(info$assessment, "neighbor_allgather <= neighbor_alltoall", fixed = TRUE)
})

test_that("without --history no history section; with one it comes before the provenance", {
  expect_false(file.exists(file.path(dir, "history.json")))
  expect_false(any(grepl("^## History", readLines(file.path(dir, "report.md")))))
  blocks <- list(heading("Verdict"), heading("Provenance"), heading("Warnings"))
  history <- list(info = list(entry = 3L, database = "h.db", entries = 3L, order = "date", already = FALSE,
                              online = "the online test", offline = "segmentation", cells = 2L, departs = 1L,
                              consistent = 1L, too_few = 0L, min_earlier = 5L),
                  departures = data.table(status = c("departs", "consistent"), campaign = "demo",
                                          library = "openmpi", param_set = "a", deployment = "1x4",
                                          op = "bcast", cell = c("msize=8", "msize=16"), earlier = 6L,
                                          baseline_from = "2026-11-29", baseline_us = 1, entry_us = c(1.5, 1),
                                          ratio = c(1.5, 1), ratio_low = c(1.3, 0.9), ratio_high = c(1.7, 1.1),
                                          p = c(1e-4, 0.5), p_adjusted = c(2e-4, 0.5),
                                          line = c("bcast msize=8 departs", "bcast msize=16 is consistent")),
                  violations = data.table(), changes = data.table())
  placed <- with_history_blocks(blocks, history_blocks(history))
  texts <- vapply(Filter(function(b) b$kind == "heading", placed), `[[`, "", "text")
  expect_equal(texts, c("Verdict", "History", "Does this entry depart from the recent history?",
                        "Since when each violation stands", "Change points of its cells' series",
                        "Provenance", "Warnings"))
  md <- to_markdown(placed)
  expect_true(any(grepl("entry 3 of the history `h.db`", md, fixed = TRUE)))
  expect_true(any(grepl("Of its 2 cells, 1 depart from their recent history, 1 are consistent with it", md,
                        fixed = TRUE)))
  expect_true(any(grepl("No test of this analysis is violated.", md, fixed = TRUE)))
  expect_true(any(grepl("No change point in the series of the cells this analysis measured.", md, fixed = TRUE)))
  expect_equal(history_change_lines(history), "bcast msize=8 departs")
  refused <- list(refused = "a history of schema version 3")
  expect_equal(history_change_lines(refused), character())
  expect_true(any(grepl("The history refused this analysis", to_markdown(history_blocks(refused)), fixed = TRUE)))
})

test_that("median_of_groups is stats::median of each group, bit for bit", {
  set.seed(3)
  for (draw in list(function(n) rexp(n), function(n) round(rnorm(n), 1), function(n) rlnorm(n, 0, 6),
                    function(n) exp(runif(n, -700, 700)), function(n) c(rexp(n - 2), NA, NaN))) {
    for (trial in 1:20) {
      g <- sample(sample(1:300, 1), sample(3:3000, 1), TRUE)
      x <- draw(length(g))
      expect_identical(median_of_groups(g, x), unname(vapply(split(x, g), median, 0)))
    }
  }
})
