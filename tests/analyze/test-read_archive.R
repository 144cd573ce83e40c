# analyze/input/read_archive.R: the archive's own tables as the analysis reads them.

test_that("a quote inside a CSV field is read as one quote, as CSV writes it (doubled)", {
  f <- tempfile(fileext = ".csv")
  writeLines(c("run_id,library,note", "r1,\"my\"\"mpi, v2\",\"\"\"\"\"\"", "r2,openmpi,"), f)
  x <- read_table(f, c("run_id", "library"))
  expect_equal(x$library, c("my\"mpi, v2", "openmpi"))
  expect_equal(x$note, c("\"\"", NA))
  # Written again by the analysis and read back: the same names.
  g <- tempfile(fileext = ".csv")
  fwrite(x, g, na = "")
  expect_equal(read_table(g, "library")$library, x$library)
})
