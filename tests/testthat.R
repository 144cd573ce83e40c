# Runs the testthat suites (tests/**/test-*.R) and writes one TAP line per
# test to the file named by the first argument, for tests/run to count.
suppressPackageStartupMessages(library(testthat))
tap_file <- commandArgs(TRUE)[1]
dirs <- unique(dirname(list.files("tests", pattern = "^test-.*\\.R$", recursive = TRUE, full.names = TRUE)))
lines <- character()
for (dir in dirs) {
  results <- as.data.frame(test_dir(dir, reporter = "summary", stop_on_failure = FALSE,
                                    stop_on_warning = FALSE))
  ok <- results$failed == 0 & !results$error & !results$skipped
  lines <- c(lines, sprintf("%s %d %s: %s", ifelse(ok, "ok", "not ok"), seq_along(ok),
                            file.path(dir, results$file), results$test))
}
writeLines(c(sprintf("# testthat: %d folders", length(dirs)), lines), tap_file)
