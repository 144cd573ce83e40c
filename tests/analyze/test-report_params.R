# The report's text names what varies in the campaign or differs from the
# default (issue 27); the CSV files keep every parameter.

test_that("report tables name only the parameters that vary or differ from their default", {
  archive <- planted_archive()
  result <- analyze_archives(archive, root = nbh_root)
  shown <- report_params(result)
  expect_true(all(c("op", "topology", "order", "nfin", "reorder", "msize") %in% shown))
  # the same everywhere: datatype byte is the default; work_us 0 too
  expect_false(any(c("datatype", "work_us", "layout", "sync", "arrival", "twin") %in% shown))
  out <- file.path(tempfile("analysis-"))
  write_outputs(result, list(out = out, plots = FALSE, max_plots = NULL, created = "now", version = "test"))
  report <- readLines(file.path(out, "report.md"))
  rows <- grep("^\\| GL4: .*; a: ", report, value = TRUE)   # the violations and closest calls
  expect_gt(length(rows), 0L)
  expect_false(any(grepl("work_us=|datatype=|layout=", rows)))
  expect_true(all(grepl("topology=", rows)))
  tests <- fread(file.path(out, "tests.csv"))
  expect_true(all(c("datatype", "work_us", "layout", "sync") %in% names(tests)))
  # a campaign whose every experiment moves int: datatype differs from its default and is named
  int <- copy(result)
  int$frame$cells[, datatype := "int"]
  expect_true("datatype" %in% report_params(int))
})
