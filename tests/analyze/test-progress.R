# GL16's computed side, guideline thresholds, measured work and overlap on
# the progress archive of helper-progress.R, whose answers are known.

gl16 <- progress_assessment(
  "GL16: ineighbor_alltoall,work_factor=1 <= max(ineighbor_alltoall,work_factor=0; work)",
  "GL16: neighbor_alltoall_init,work_factor=1 <= max(neighbor_alltoall_init,work_factor=0; work)",
  "GL15: ineighbor_alltoall,work_factor=1 <= neighbor_alltoall,work_factor=1")
archive <- progress_archive(gl16)

test_that("GL16: the right side per run is max(run median without work, measured work), threshold 1.10", {
  result <- analyze_archives(archive, root = nbh_root)
  tt <- test_table(result)
  g16 <- tt[tag == "GL16"]
  expect_equal(nrow(g16), 4L)
  # b(r) = max(100, 100) µs: the ratio is a's time over 100 µs.
  expect_equal(g16[op == "ineighbor_alltoall"][order(msize), ratio], c(1.05, 2), tolerance = 0.01)
  expect_equal(g16[op == "neighbor_alltoall_init", ratio], c(1.5, 1.5), tolerance = 0.01)
  expect_equal(g16[, median_b_us], rep(100, 4), tolerance = 0.01)
  # 1.05 is below GL16's own threshold (registry: 1.10), although above the analysis's 1.03.
  expect_equal(g16[op == "ineighbor_alltoall"][order(msize), violated], c(FALSE, TRUE))
  expect_true(all(g16[op == "neighbor_alltoall_init", violated]))
  expect_equal(g16[violated == TRUE, p_value], rep(1 / choose(16, 8), 3L))
  # b is the operation without work, shown as the computed side.
  expect_equal(unique(g16$a_params), "work_factor=1")
  expect_equal(unique(g16$b_params), "max(work_factor=0; work)")
  expect_equal(unique(result$frame$cells[g16$b_cell, work_factor]), 0)
  # GL15 is an ordinary guideline: 105 and 200 µs against the blocking 200 µs.
  expect_false(any(tt[tag == "GL15", violated]))
})

test_that("an assessment set can give its guidelines another ratio threshold", {
  lower <- assessment_file("[progress]", "parameter = op", "varied = msize", "v_thres = 1.03",
                           "GL16: ineighbor_alltoall,work_factor=1 <= max(ineighbor_alltoall,work_factor=0; work)")
  tt <- test_table(analyze_archives(archive, lower, root = nbh_root))
  expect_equal(tt[order(msize), violated], c(TRUE, TRUE))
  closest <- closest_calls(test_table(analyze_archives(archive, root = nbh_root)), 0.001, 1.03)
  expect_equal(closest[tag == "GL16", short_of], "ratio")   # 1.05 < 1.10, not < 1.03
})

test_that("overlap per cell: IMB-NBC's formula on medians of run medians, quartiles over runs", {
  result <- analyze_archives(archive, root = nbh_root)
  o <- result$overlap
  expect_equal(nrow(o), 6L)   # three forms x two sizes with work
  expect_equal(o[op == "ineighbor_alltoall"][order(msize), overlap_percent], c(95, 0), tolerance = 2)
  expect_equal(o[op == "neighbor_alltoall_init", overlap_percent], c(50, 50), tolerance = 2)
  expect_equal(o[op == "neighbor_alltoall", overlap_percent], c(0, 0), tolerance = 1)
  expect_equal(o$t_pure_us, rep(100, 6), tolerance = 0.01)
  expect_equal(o$t_work_us, rep(100, 6), tolerance = 0.01)
  expect_true(all(o$overlap_q1 <= o$overlap_q3))
  expect_true(all(o[op == "ineighbor_alltoall" & msize == 1024, overlap_q1 > 80 & overlap_q3 <= 100]))
  expect_equal(unique(o$runs), 8L)
  expect_equal(overlap_percent(100, 100, c(100, 150, 200, 250, 50)), c(100, 50, 0, 0, 100))
})

test_that("overlap.csv, the overlap plots and the report section are written", {
  out <- tempfile("analysis-")
  written <- write_outputs(analyze_archives(archive, root = nbh_root), list(out = out, plots = TRUE))
  overlap <- fread(file.path(out, "overlap.csv"))
  expect_equal(names(overlap)[c(1, 5)], c("library", "op"))
  expect_true(all(c("msize", "work_factor", "t_pure_us", "t_work_us", "t_ovl_us", "overlap_percent", "overlap_q1",
                    "overlap_q3", "runs") %in% names(overlap)))
  expect_equal(nrow(overlap), 6L)
  report <- readLines(file.path(out, "report.md"))
  expect_true(any(report == "## Overlap with busy work"))
  expect_true(any(grepl("^!\\[Overlap: .*\\]\\(plots/overlap-01.png\\)", report)))
  expect_true(file.exists(file.path(out, "plots", "overlap-01.png")))
  expect_true(any(grepl("own ratio thresholds: GL16 \\(2 guidelines\\) v >= 1.1", report)))
  # No focus plot of a computed side (it has no raw times of its own).
  expect_false(any(grepl("focus-0[12]-GL16", list.files(file.path(out, "plots")))))
})

test_that("archives without measured work or work_factor are analysed as before", {
  old <- progress_archive(progress_assessment("neighbor_alltoall <= ineighbor_alltoall"), work_seconds = FALSE,
                          work_factor = FALSE)
  messages <- warnings_of(result <- analyze_archives(old, root = nbh_root))
  expect_length(messages, 0L)
  expect_true(all(is.na(result$frame$cells$work_factor)))
  expect_equal(nrow(result$work), 0L)
  expect_equal(nrow(result$overlap), 0L)
  out <- tempfile("analysis-")
  write_outputs(result, list(out = out, plots = FALSE))
  expect_false(file.exists(file.path(out, "overlap.csv")))
  expect_false(any(grepl("Overlap", readLines(file.path(out, "report.md")))))
})

test_that("GL16 without measured work, or naming a side the archive lacks, is one clear error", {
  no_work <- progress_archive(gl16, work_seconds = FALSE, nrun = 2L)
  expect_error(analyze_archives(no_work, root = nbh_root),
               "max\\(\\.\\.\\.; work\\) needs the busy work measured per repetition", class = "nbh_input_error")
  missing <- assessment_file(progress_assessment(
    "GL16: ineighbor_alltoall,work_factor=1 <= max(ineighbor_alltoall,work_factor=3; work)"))
  expect_error(analyze_archives(archive, missing, root = nbh_root),
               ":4: level '3' of parameter work_factor is not in the archives", class = "nbh_input_error")
  absent_op <- assessment_file(progress_assessment(
    "GL16: ineighbor_allgather,work_factor=1 <= max(ineighbor_allgather,work_factor=0; work)"))
  expect_error(analyze_archives(archive, absent_op, root = nbh_root),
               "level 'ineighbor_allgather' of parameter op is not in the archives", class = "nbh_input_error")
  no_work_side <- assessment_file(progress_assessment(
    "GL16: ineighbor_alltoall,work_factor=0 <= max(neighbor_alltoall,work_factor=0; work)"))
  expect_error(analyze_archives(archive, no_work_side, root = nbh_root), "no cell of side a has it",
               class = "nbh_input_error")
})

test_that("a computed side is max(SIDE; work), on the right of <=", {
  bad <- list(
    "ineighbor_alltoall <= max(ineighbor_alltoall,work_factor=0)" = "a computed side is max\\(SIDE; work\\)",
    "ineighbor_alltoall <= max(work; work)" = "a computed side is max\\(SIDE; work\\)",
    "ineighbor_alltoall <= max(neighbor_alltoall; ineighbor_alltoall)" = "a computed side is max\\(SIDE; work\\)",
    "max(ineighbor_alltoall; work) <= neighbor_alltoall" = "can only be the right side",
    "ineighbor_alltoall ~ max(ineighbor_alltoall; work)" = "a computed side needs <=")
  for (line in names(bad)) {
    expect_error(parse_assessment(assessment_file(progress_assessment(line))), bad[[line]],
                 class = "nbh_input_error")
  }
  expect_error(parse_assessment(assessment_file("[s]", "parameter = op", "varied = msize", "v_thres = fast",
                                                "a <= b")),
               ":4: v_thres: 'fast' is not a positive ratio", class = "nbh_input_error")
  g <- parse_assessment(assessment_file(progress_assessment(
    "GL16: ineighbor_alltoall,work_factor=1 <= max( ineighbor_alltoall , work_factor=0 ;work )")))[[1]]
  expect_equal(g$computed, "max_work")
  expect_equal(g$b, c(op = "ineighbor_alltoall", work_factor = "0"))
  expect_equal(guideline_thresholds(list(g), read_registry(nbh_root)$guidelines)[[1]]$v_thres, 1.1)
})
