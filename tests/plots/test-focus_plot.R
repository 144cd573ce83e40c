archive <- planted_archive()
result <- analyze_archives(archive, root = nbh_root)
tt <- test_table(result)
vt <- violation_table(tt)

test_that("focus data: a box per run and side, normalised to the median of a's run medians", {
  fd <- focus_data(result, vt)
  expect_equal(nrow(fd$plots), 3L)
  for (i in seq_len(nrow(fd$plots))) {
    d <- fd$data[plot == i]
    expect_equal(d[side == "a", run], 1:8)
    expect_equal(d[side == "b", run], 1:8)
    # The middle of each box is its run median: their median is 1 on side a,
    # and median_b / median_a on side b.
    expect_equal(median(d[side == "a", middle]), 1, tolerance = 1e-12)
    expect_equal(median(d[side == "b", middle]), vt$median_b_us[i] / vt$median_a_us[i], tolerance = 1e-12)
    expect_true(all(d$ymin <= d$lower & d$lower <= d$middle & d$middle <= d$upper & d$upper <= d$ymax))
  }
})

test_that("focus data: the boxes are of the values that passed the Tukey filter", {
  fd <- focus_data(result, vt[1])
  a_cell <- vt$a_cell[1]
  the_exp <- result$frame$cells[cell == a_cell, exp]
  the_id <- result$frame$ids[exp == the_exp, id]
  expect_length(the_id, 1L)
  raw <- fread(file.path(archive, "results", "1x4-default-r001.results.csv"))[id == the_id]
  expect_equal(nrow(raw), 20L)
  kept <- tukey_filter(raw[, .(id, seconds)])
  box <- fd$data[side == "a" & run == 1L]
  scale <- vt$median_a_us[1] / 1e6
  expect_equal(box$ymin * scale, min(kept$seconds))
  expect_equal(box$ymax * scale, max(kept$seconds))
  expect_equal(box$n, nrow(kept))
  expect_lt(box$n, 20L + 1L)
  # The x: the run's 99th percentile of all 20 times, the outliers too (numpy's "linear").
  expect_equal(box$p99 * scale, percentile_sorted(sort(raw$seconds), 0, 20L, 99))
  expect_gte(box$p99 * scale, sort(raw$seconds)[19])
})

test_that("the focus plot draws one box per run and side with the reference lines", {
  fd <- focus_data(result, vt[1])
  p <- focus_plot(fd$plots[1], fd$data[plot == 1L])
  built <- ggplot_build(p)
  d <- fd$data[plot == 1L][order(side, run)]
  whiskers <- as.data.table(built$data[[1]])[order(PANEL, x)]
  boxes <- as.data.table(built$data[[2]])[order(PANEL, xmin)]
  middles <- as.data.table(built$data[[3]])[order(PANEL, x)]
  expect_equal(nrow(boxes), 16L)
  expect_equal(whiskers[, .(y, yend)], d[, .(y = ymin, yend = ymax)], ignore_attr = TRUE)
  expect_equal(boxes[, .(ymin, ymax)], d[, .(ymin = lower, ymax = upper)], ignore_attr = TRUE)
  expect_equal(middles$y, d$middle)
  expect_equal(unique(built$data[[4]]$yintercept), 1)       # in both panels
  expect_equal(unique(built$data[[5]]$yintercept), vt$median_b_us[1] / vt$median_a_us[1])
  # Each run's P99: an x, or a triangle at the cap with its value when far above the boxes.
  marks <- focus_tail_marks(copy(fd$data[plot == 1L]), fd$plots[1])
  cap <- 1.5 * max(d$ymax, 1, vt$median_b_us[1] / vt$median_a_us[1], fd$plots$b_high[1])
  expect_equal(marks$y, pmin(d$p99, cap))
  expect_equal(marks$shape, ifelse(d$p99 > cap, 2, 4))
  points <- as.data.table(built$data[[length(built$data) - 1L]])
  expect_equal(sort(points$y), sort(pmin(d$p99, cap)))
  expect_equal(nrow(as.data.table(built$data[[length(built$data)]])), sum(d$p99 > cap))   # their values
  expect_match(fd$plots$caption[1], "msize=1024.*ratio 1\\.2")
  expect_equal(p$labels$y, "time / median of a's run medians")
})

test_that("one whisker 90 times the median is cut at the top of the view and marked; the boxes keep the panel", {
  # docs/examples/releases/2026-11-27/five-libraries focus-02 (t0012): one run's largest kept time 90x the median.
  fd <- focus_data(result, vt[1])
  expect_true(all(is.na(fd$plots$view_top)) && !any(fd$data$cut))   # nothing far out: nothing cut
  expect_equal(fd$data$top, fd$data$ymax)
  data <- fd$data[plot == 1L, .(plot, side, run, ymin, lower, middle, upper, ymax, n)]
  data[side == "a" & run == 3L, ymax := 90]
  view <- focus_view(fd$plots[1], data)
  d <- view$data
  high <- max(d$upper, 1, fd$plots$median_b_us[1] / fd$plots$median_a_us[1], fd$plots$b_high[1])
  expect_equal(d[cut == TRUE, .(side, run)], data.table(side = "a", run = 3L))
  expect_equal(view$plots$view_top, max(high, d[cut == FALSE, max(ymax)]))
  expect_equal(d[cut == TRUE, top], view$plots$view_top)
  expect_equal(d[cut == FALSE, top], d[cut == FALSE, ymax])
  built <- ggplot_build(focus_plot(view$plots, d))
  top <- max(vapply(built$layout$panel_params, function(pp) pp$y.range[2], 1))
  expect_lt(top, 0.2 * 90)                     # the y axis ends near the boxes, not at 90
  expect_gte(top, max(d$upper))
  marks <- Filter(function(layer) "label" %in% names(layer) && any(layer$label == "90"), built$data)
  expect_length(marks, 1L)                     # the cut whisker's value, at the cut
  expect_equal(marks[[1]]$y, view$plots$view_top)
  expect_match(built$plot$labels$subtitle, "whisker cut at the top")
})
