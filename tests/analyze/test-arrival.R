# AR1 and AR2 (SPEC 8.2), the arrival table and the report section, on the
# arrival archive of helper-arrival.R, whose answers are known.

ar <- arrival_assessment(
  "AR1: one_late <= plus(none; delay)",
  "AR1: uniform <= plus(none; delay)",
  "AR2: others(one_late) <= others(none)")
archive <- arrival_archive(ar)
result <- analyze_archives(archive, root = nbh_root)
tt <- test_table(result)

test_that("AR1: the right side per run is the run median without delay plus the measured delay, threshold 1.10", {
  a1 <- tt[tag == "AR1"]
  expect_equal(nrow(a1), 4L)
  a1[, pattern := result$frame$cells[a_cell, arrival]]
  expect_equal(a1[pattern == "one_late"][order(msize), median_b_us], c(620, 520), tolerance = 0.02)
  expect_equal(a1[pattern == "uniform", median_b_us], c(470, 470), tolerance = 0.02)
  expect_equal(a1[pattern == "one_late"][order(msize), ratio], c(622 / 620, 700 / 520), tolerance = 0.02)
  expect_equal(a1[pattern == "uniform", ratio], c(1, 1), tolerance = 0.02)
  # 64 B holds although 622 us is 1.2 x (20 + the nominal 500): the node stretched the wait, not the library.
  expect_equal(a1[order(pattern, msize), violated], c(FALSE, TRUE, FALSE, FALSE))
  expect_equal(a1[violated == TRUE, p_value], 1 / choose(16, 8))
  expect_equal(unique(a1$b_params), "plus(arrival=none; delay)")
  expect_equal(unique(result$frame$cells[a1$b_cell, arrival]), "none")
})

test_that("AR2: the processes outside the late one's neighborhood against themselves without delay", {
  a2 <- tt[tag == "AR2"]
  expect_equal(nrow(a2), 2L)
  expect_equal(a2[order(msize), median_a_us], c(20, 521), tolerance = 0.05)
  expect_equal(a2[order(msize), median_b_us], c(20, 20) + 500 / 2, tolerance = 0.05)   # + d/2
  expect_equal(a2[order(msize), violated], c(FALSE, TRUE))
  expect_equal(unique(a2$a_params), "others(arrival=one_late,arrival_us=500)")
  expect_equal(unique(a2$b_params), "others(arrival=none)")
  expect_equal(result$frame$cells[a2$a_cell, arrival], c("one_late", "one_late"))
})

test_that("the arrival table: each process's extra time over its time without delay", {
  x <- result$arrival
  cells <- result$frame$cells
  expect_equal(nrow(x), 8L)   # two one_late cells x four processes
  small <- x[cells[x$cell, msize] == 64L]
  big <- x[cells[x$cell, msize] == 1024L]
  expect_equal(small[order(rank), extra_seconds * 1e6], c(0, 602, 600, 602), tolerance = 0.05, scale = 620)
  expect_equal(big[rank == 0L, extra_seconds * 1e6], 501, tolerance = 0.02)
  expect_equal(small[order(rank), role], ARRIVAL_ROLES)
  expect_equal(small[rank == 2L, delay_seconds], 600e-6)
  # The report's table and pictures: the cell whose other process lost the most first.
  expect_equal(arrival_summary(result)$msize, c(1024L, 64L))
  expect_equal(arrival_summary(result)$late_process, c(2L, 2L))
})

test_that("the pictures lay a 2-D grid out row by row, everything else in rank order", {
  at <- process_positions(0:7, rep("moore", 8), rep(2L, 8), rep(8L, 8))   # tuw_dims_create(8, 2) = 4 x 2
  expect_equal(at$row, c(0, 0, 1, 1, 2, 2, 3, 3))
  expect_equal(at$column, c(0, 1, 0, 1, 0, 1, 0, 1))
  ring <- process_positions(0:3, rep("cart", 4), rep(1L, 4), rep(4L, 4))
  expect_equal(ring$row, rep(0, 4))
  expect_equal(ring$column, 0:3)
})

test_that("arrival.csv, the pictures and the report section are written", {
  out <- tempfile("analysis-")
  write_outputs(result, list(out = out, plots = TRUE))
  arrival <- fread(file.path(out, "arrival.csv"))
  expect_true(all(c("arrival", "arrival_us", "msize", "rank", "role", "seconds_us", "baseline_us", "extra_us",
                    "delay_us") %in% names(arrival)))
  expect_equal(nrow(arrival), 8L)
  expect_equal(length(list.files(file.path(out, "plots"), "^arrival-.*\\.png$")), 2L)
  report <- readLines(file.path(out, "report.md"))
  expect_true("## Arrival patterns and synchronised starts" %in% report)
  expect_true(any(grepl("AR2: others\\(one_late\\) <= others\\(none\\)", report)))
  expect_false(file.exists(file.path(out, "clock_starts.csv")), "no experiment started with the clock")
})

test_that("computed arrival sides are checked: plus() on the right of <=, others() on both sides", {
  bad <- list(
    "plus(none; delay) <= one_late" = "plus\\(SIDE; delay\\) can only be the right side",
    "one_late <= plus(none)" = "or plus\\(SIDE; delay\\)",
    "others(one_late) <= none" = "others\\(SIDE\\) is on both sides",
    "others(one_late) ~ others(none)" = "others\\(SIDE\\) needs <=")
  for (g in names(bad)) {
    f <- assessment_file(arrival_assessment(g))
    expect_error(parse_assessment(f), bad[[g]], info = g)
  }
  f <- assessment_file(arrival_assessment("AR1: none,msize=64 <= plus(none,msize=1024; delay)"))
  expect_error(analyze_archives(archive, f, root = nbh_root), "no cell of side a has a delay")
  f <- assessment_file(arrival_assessment("AR2: others(one_late) <= others(none)"))
  expect_error(analyze_archives(arrival_archive(ar, ranks = FALSE), f, root = nbh_root),
               "archives were made before the kernel wrote per-process times")
})
