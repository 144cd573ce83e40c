archive <- planted_archive()

analysed <- function(dir = tempfile("out-"), plots = TRUE, max_plots = NULL, ...) {
  result <- analyze_archives(archive, root = nbh_root, ...)
  out <- write_outputs(result, list(out = dir, plots = plots, max_plots = max_plots, created = "now",
                                    version = "test"), warnings = "a warning")
  list(dir = dir, out = out)
}
a <- analysed()

test_that("summary.csv: one row per guideline and deployment, with the counts", {
  s <- fread(file.path(a$dir, "summary.csv"), na.strings = "")
  expect_equal(names(s), c("set", "tag", "guideline", "library", "param_set", "deployment", "nprocs",
                           "n_vio_tests", "n_tests", "n_vio_groups", "n_groups"))
  expect_equal(s$guideline[1], "neighbor_allgather <= neighbor_alltoall")
  expect_equal(s[tag == "GL4" & deployment == "1x4", .(n_vio_tests, n_tests, n_vio_groups, n_groups)],
               data.table(n_vio_tests = 1L, n_tests = 48L, n_vio_groups = 1L, n_groups = 12L))
})

test_that("violations.csv: one row per violation with every parameter, ratio, p and runs", {
  v <- fread(file.path(a$dir, "violations.csv"), na.strings = "")
  expect_equal(nrow(v), 3L)
  for (col in c("guideline", "library", "nprocs", "op", "topology", "order", "msize", "a_params", "b_params",
                "ratio", "p_value", "runs_a", "runs_b", "median_a_us", "median_b_us", "overview_plot", "focus_plot")) {
    expect_true(col %in% names(v), info = col)
  }
  expect_equal(v$msize, c(1024L, 1024L, 16384L))
  expect_equal(v$runs_a, rep(8L, 3L))
  expect_true(all(file.exists(file.path(a$dir, v$focus_plot))))
  expect_equal(nrow(fread(file.path(a$dir, "tests.csv"))), 320L)
})

test_that("report.md has the study's table, the violations, plots with captions, provenance and warnings", {
  md <- readLines(file.path(a$dir, "report.md"))
  expect_true(any(grepl("| GL4: neighbor_allgather <= neighbor_alltoall | 1/48 (1/12) | 0/48 (0/12) |", md, fixed = TRUE)))
  expect_true(any(grepl("**3 of 320 tests violated** (3 of 80 groups)", md, fixed = TRUE)))
  expect_equal(sum(grepl("^!\\[Overview: ", md)), 3L)
  expect_equal(sum(grepl("^!\\[Focus: ", md)), 3L)
  expect_true(any(grepl("campaign: synthetic", md, fixed = TRUE)))
  expect_true(any(grepl("library_version: openmpi 9.9.9 (synthetic)", md, fixed = TRUE)))
  expect_true(any(grepl("^- a warning$", md)))
})

test_that("report.html is self-contained: every image is embedded", {
  html <- paste(readLines(file.path(a$dir, "report.html")), collapse = "\n")
  expect_equal(lengths(regmatches(html, gregexpr("<img src=\"data:image/png;base64,", html, fixed = TRUE))), 6L)
  expect_false(grepl("src=\"plots/", html, fixed = TRUE))
  expect_match(html, "<td>1/48 \\(1/12\\)</td>")
  expect_match(html, "neighbor_allgather &lt;= neighbor_alltoall")
})

test_that("plots: PNG and PDF of each overview and focus plot; --max-plots and --no-plots", {
  files <- list.files(file.path(a$dir, "plots"))
  expect_equal(sum(grepl("^overview-.*\\.png$", files)), 3L)
  expect_equal(sum(grepl("^focus-.*\\.pdf$", files)), 3L)
  expect_length(files, 12L)
  b <- analysed(max_plots = 1L)
  expect_length(list.files(file.path(b$dir, "plots")), 4L)
  expect_true(any(grepl("4 plots left out (--max-plots 1)", readLines(file.path(b$dir, "report.md")), fixed = TRUE)))
  c <- analysed(plots = FALSE)
  expect_length(list.files(file.path(c$dir, "plots")), 0L)
  expect_true(any(grepl("Plots were not drawn", readLines(file.path(c$dir, "report.md")))))
})

test_that("the output directory: an earlier analysis is replaced, anything else is refused", {
  b <- analysed(a$dir, plots = FALSE)    # into the same directory again, without plots
  expect_length(list.files(file.path(a$dir, "plots")), 0L)
  other <- tempfile("other-")
  dir.create(other)
  writeLines("mine", file.path(other, "notes.txt"))
  expect_error(analysed(other), "is not an nbhbench analysis; choose another --out", class = "nbh_output_error")
  expect_equal(readLines(file.path(other, "notes.txt")), "mine")
})

test_that("with several parameter sets the report says which set removes which violations (SPEC 6)", {
  dir <- file.path(tempfile("tuning-"), "tuning")
  write_synthetic_archive(dir, synthetic_experiments("small", nrep = 20L), deployments = "1x4", nrun = 8L,
                          param_sets = c("default", "tuned"), inputs = FALSE, seed = 9L,
                          planted = list(list(where = list(op = "neighbor_allgather", topology = "cart", nfin = 0,
                                                           reorder = 0, msize = 4096, param_set = "default"),
                                              factor = 1.3)))
  result <- analyze_archives(dir, root = nbh_root)
  tt <- test_table(result)
  expect_equal(tt[violated == TRUE, .N, keyby = .(tag, param_set)],
               data.table(tag = c("GL4", "GL9"), param_set = "default", N = 1L, key = c("tag", "param_set")))
  ps <- param_set_table(tt, result$params$name)
  expect_equal(ps[tag == "GL4", .(param_set, violated, `removed vs default`, `added vs default`)],
               data.table(param_set = c("default", "tuned"), violated = c(1L, 0L),
                          `removed vs default` = c(NA, 1L), `added vs default` = c(NA, 0L)))
  s <- summary_table(result, tt)
  expect_equal(s[tag == "GL4", .(param_set, n_vio_tests)], data.table(param_set = c("default", "tuned"), n_vio_tests = c(1L, 0L)))
  out_dir <- tempfile("out-")
  write_outputs(result, list(out = out_dir, plots = FALSE, created = "now", version = "test"))
  md <- readLines(file.path(out_dir, "report.md"))
  expect_true("## Library parameter sets" %in% md)
  expect_true(any(grepl("| GL4 | neighbor_allgather <= neighbor_alltoall | openmpi | 1x4 | tuned | 0 | 1 | 0 | 48 |",
                        md, fixed = TRUE)))
  expect_true(any(grepl("| guideline | default 1x4 | tuned 1x4 |", md, fixed = TRUE)))
})
