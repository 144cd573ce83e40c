# select_runs: layout-mismatch runs are left out unless asked, and said so.

mismatched_archive <- function(bad = 2L) {
  dir <- planted_archive(seed = 14L)
  runs <- fread(file.path(dir, "runs.csv"), colClasses = "character")
  runs[, `:=`(layout = "ok", layout_detail = "", oversubscribed = "no")]
  runs[seq_len(bad), `:=`(layout = "layout-mismatch", layout_detail = "asked 2x4, got 1 host instead of 2 (n1:8)")]
  fwrite(runs, file.path(dir, "runs.csv"))
  dir
}

test_that("mismatched runs are left out, with one warning naming how many", {
  dir <- mismatched_archive()
  w <- warnings_of(result <- analyze_archives(dir))
  expect_equal(sum(grepl("^2 of 16 runs left out of the assessment: .*layout-mismatch", w)), 1L)
  expect_false(any(grepl("are not in runs.csv", w)))
  expect_equal(nrow(result$runs$mismatched), 2L)
  expect_equal(nrow(result$frame$runs), 14L)
  expect_equal(max(result$tests$runs_a + result$tests$runs_b), 16L)
  dropped <- fread(file.path(dir, "runs.csv"))[layout == "layout-mismatch", .N, by = deployment]
  expect_equal(min(result$tests$runs_a), 8L - max(dropped$N))   # the context of the runs left out
})

test_that("--include-mismatched keeps them, and says so", {
  dir <- mismatched_archive()
  w <- warnings_of(result <- analyze_archives(dir, include_mismatched = TRUE))
  expect_true(any(grepl("2 of 16 runs are layout-mismatches, assessed anyway", w)))
  expect_equal(nrow(result$frame$runs), 16L)
  expect_true(result$runs$included)
})

test_that("an archive whose every run is a mismatch is one input error", {
  dir <- mismatched_archive(bad = 16L)
  expect_error(analyze_archives(dir), "every run of .* is a layout-mismatch .*--include-mismatched",
               class = "nbh_input_error")
})

test_that("archives without a layout column are taken as they are", {
  result <- suppressWarnings(analyze_archives(planted_archive(seed = 15L)))
  expect_equal(nrow(result$runs$mismatched), 0L)
  expect_equal(nrow(result$frame$runs), 16L)
})
