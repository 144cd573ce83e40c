# Whether the parameter sets were in force: param_sets.csv against
# archive.json's param_set_check, in the report's provenance and as warnings.
small_sets_archive <- function(reported = list(), drop_check = FALSE) {
  dir <- file.path(tempfile("sets-"), "sets")
  ex <- synthetic_experiments("small", nrep = 5L)[topology == "cart" & nfin == 0L & reorder == 0L & msize == 256L]
  sets <- list(default = character(), tuned = c(coll_a = "256", coll_b = "true"), other = c(coll_c = "3"))
  write_synthetic_archive(dir, ex, deployments = "1x2", nrun = 8L, param_sets = sets, reported = reported,
                          inputs = FALSE, assessment = c("[ops]", "parameter = op", "varied = msize",
                                                         "neighbor_allgather <= neighbor_alltoall"))
  if (drop_check) {
    info <- jsonlite::fromJSON(file.path(dir, "archive.json"), simplifyVector = FALSE)
    info$param_set_check <- NULL
    write_json_object(info, file.path(dir, "archive.json"))
  }
  dir
}

test_that("every parameter in force: a table row each, no warning", {
  dir <- small_sets_archive()
  w <- warnings_of(result <- analyze_archives(dir, root = nbh_root))
  expect_length(w, 0L)
  p <- param_set_provenance(result$archives[[1]])
  expect_equal(p, data.table(param_set = c("tuned", "tuned", "other"), name = c("coll_a", "coll_b", "coll_c"),
                             value = c("256", "true", "3"), runs = 8L, checked = 8L, in_force = 8L, differs = 0L,
                             not_reported = 0L, not_verifiable = 0L, reported = c("256", "true", "3"),
                             why = NA_character_, check = "in force"))
})

test_that("a parameter MPI_T cannot see: set, not verifiable in the report, no warning", {
  dir <- small_sets_archive(reported = list(tuned = c(coll_b = "")))
  w <- warnings_of(result <- analyze_archives(dir, root = nbh_root))
  expect_length(w, 0L)
  p <- param_set_provenance(result$archives[[1]])
  expect_equal(p$check, c("in force", "set, not verifiable", "in force"))
  expect_equal(p$not_verifiable, c(0L, 8L, 0L))
  expect_equal(p$reported, c("256", NA, "3"))
  out <- tempfile("out-")
  write_outputs(result, list(out = out, plots = FALSE, created = "now", version = "test"), warnings = w)
  md <- readLines(file.path(out, "report.md"))
  expect_true(paste("| tuned | coll_b | true |  | 8 | set, not verifiable (8 of 8 runs;",
                    "not an MPI_T variable (env_only)) |") %in% md)
})

test_that("a value that differs or is not reported: one warning each, flagged in the report", {
  dir <- small_sets_archive(reported = list(tuned = c(coll_b = NA), other = c(coll_c = "5")))
  w <- warnings_of(result <- analyze_archives(dir, root = nbh_root))
  expect_equal(w, c(paste("sets: parameter set tuned: coll_b = true was not reported by the library (MPI_T) in 8 of 8",
                          "checked runs; whether it was in force is not known"),
                    "sets: parameter set other: coll_c = 3 was not in force in 8 of 8 checked runs (the library reported 5)"))
  p <- param_set_provenance(result$archives[[1]])
  expect_equal(p$check, c("in force", "not reported", "differs"))
  expect_equal(p$reported, c("256", NA, "5"))
  out <- tempfile("out-")
  write_outputs(result, list(out = out, plots = FALSE, created = "now", version = "test"), warnings = w)
  md <- readLines(file.path(out, "report.md"))
  expect_true("| tuned | coll_a | 256 | 256 | 8 | in force (8 of 8 runs) |" %in% md)
  expect_true("| tuned | coll_b | true |  | 8 | NOT REPORTED in 8 of 8 runs |" %in% md)
  expect_true("| other | coll_c | 3 | 5 | 8 | DIFFERS in 8 of 8 runs |" %in% md)
  expect_true("`default`: no parameters (the library's defaults)." %in% md)
  expect_false(any(grepl("^- param_set_check", md)))
  expect_true(any(grepl("coll_c = 3 was not in force", readLines(file.path(out, "warnings.txt")))))
})

test_that("an archive without param_set_check: one warning, the table says not checked", {
  dir <- small_sets_archive(drop_check = TRUE)
  w <- warnings_of(result <- analyze_archives(dir, root = nbh_root))
  expect_equal(w, paste("sets: archive.json has no param_set_check; whether the values of parameter set(s)",
                        "tuned, other were in force is not known"))
  expect_equal(param_set_provenance(result$archives[[1]])$check, rep("not checked", 3L))
})
