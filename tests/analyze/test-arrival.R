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

test_that("clock starts: the skew measured with fresh offsets beside the model's own, empty from older kernels", {
  # Two cells started with the clock, 3 runs, two rounds each; cell 2's runs
  # come from a kernel before measured_skew_seconds.
  dir <- tempfile("clock-starts-")
  dir.create(file.path(dir, "results"), recursive = TRUE)
  runs <- data.table(archive = 1L, run_id = sprintf("1x4-default-r%03d", 1:3), context = 1L, run_key = 1:3)
  for (r in 1:3) {
    fwrite(data.table(id = c(1L, 1L), round = 1:2, op = "bcast", sync = "clock", sync_seconds = 1e-3,
                      window_seconds = 50e-6, offset_spread_seconds = 2e-6, start_skew_seconds = 20e-9,
                      invalid_reps = 1, reps = 5L, measured_skew_seconds = c(3, 5) * r * 1e-6,
                      skew_bound_seconds = c(4, 6) * 1e-6 + (r - 1) * 5e-6),
           file.path(dir, "results", paste0(runs$run_id[r], ".preparation.csv")))
    fwrite(data.table(id = 2L, round = 1L, op = "bcast", sync = "clock", sync_seconds = 1e-3, window_seconds = 50e-6,
                      offset_spread_seconds = 2e-6, start_skew_seconds = 30e-9, invalid_reps = 0, reps = 10L),
           file.path(dir, "results", paste0(runs$run_id[r], ".preparation-old.csv")))
  }
  cells <- data.table(cell = 1L, exp = 1L, context = 1L, library = "openmpi", deployment = "1x4", op = "bcast")
  frame <- list(cells = cells, runs = runs, ids = data.table(archive = 1L, id = 1L, exp = 1L))
  medians <- data.table(cell = 1L, run = 1:3, median = 1e-5, key = c("cell", "run"))
  x <- read_clock_starts(list(list(dir = dir)), frame, medians)
  expect_equal(x$measured_skew_seconds, c(4, 8, 12) * 1e-6)   # the median of each run's two rounds
  expect_equal(x$start_skew_seconds, rep(20e-9, 3))
  result <- list(clock_starts = x, frame = frame, params = data.table(name = c("library", "deployment", "op")))
  expect_equal(clock_start_rows(result)$measured_skew_us, 8)
  # beside it its resolution, read from skew_bound_seconds: 5, 10 and 15 us
  expect_equal(x$skew_bound_seconds, c(5, 10, 15) * 1e-6)
  expect_equal(clock_start_rows(result)$skew_bound_us, 10)
  result$frame$cells[, param_set := "default"]
  result$params <- data.table(name = c("library", "param_set", "deployment", "op"))
  blocks <- arrival_blocks(result, NULL, list(plots = FALSE))
  table <- Find(function(b) identical(b$kind, "table"), blocks)$dt
  expect_false(is.null(table))
  expect_equal(table[["its resolution, median (us)"]], "10.00")
  # runs 1 and 2 measured 4 and 8 us at resolutions of 5 and 10; run 3 12 at 15: the cell's medians, 8 at 10
  expect_equal(table[["measured at or below its resolution"]], "1 of 1")
  # a kernel before the column: the cell reads, its measured skew is empty
  for (r in 1:3) {
    file.rename(file.path(dir, "results", paste0(runs$run_id[r], ".preparation-old.csv")),
                file.path(dir, "results", paste0(runs$run_id[r], ".preparation.csv")))
  }
  frame$ids <- data.table(archive = 1L, id = 2L, exp = 1L)
  old <- read_clock_starts(list(list(dir = dir)), frame, medians)
  expect_equal(nrow(old), 3L)
  expect_true(all(is.na(old$measured_skew_seconds)) && all(is.na(old$skew_bound_seconds)))
})
