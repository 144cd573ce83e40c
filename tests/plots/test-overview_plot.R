archive <- planted_archive()
result <- analyze_archives(archive, root = nbh_root)
tt <- test_table(result)
groups <- unique(tt[violated == TRUE, .(guideline_no, group)])

test_that("overview data: one plot per violated group, the medians of run medians by msize", {
  od <- overview_data(tt, groups, result$params$name)
  expect_equal(nrow(od$plots), 3L)
  expect_equal(od$plots$file, sprintf(c("overview-01-GL4-g%03d", "overview-02-GL9-g%03d", "overview-04-GL12-g%03d"),
                                      groups$group))
  for (i in seq_len(nrow(od$plots))) {
    rows <- tt[guideline_no == od$plots$guideline_no[i] & group == od$plots$group[i]][order(msize)]
    d <- od$data[plot == i]
    expect_equal(d$x_num, c(256, 1024, 4096, 16384))
    expect_equal(d$median_a_us, rows$median_a_us)
    expect_equal(d$median_b_us, rows$median_b_us)
    expect_equal(d$violated, rows$violated)
  }
  expect_equal(od$plots$a_label[1], "op=neighbor_allgather")  # what differs; the title has the guideline
  expect_equal(od$plots$b_label[1], "op=neighbor_alltoall")
  expect_match(od$plots$caption[1], "^openmpi default, 1x4 \\(4 processes\\); topology=cart, constructor=cart_create, ndim=2, nfin=0, reorder=0, datatype=byte, work_us=0, layout=contiguous, type_constructor=basic, packing=datatype; a: op=neighbor_allgather; b: op=neighbor_alltoall$")
})

test_that("the overview plot draws both sides on log scales and rings the violated point", {
  od <- overview_data(tt, groups, result$params$name)
  p <- overview_plot(od$plots[1], od$data[plot == 1L])
  built <- ggplot_build(p)
  expect_equal(nrow(built$data[[1]]), 8L)                 # two lines of 4 points
  ring <- built$data[[3]]
  expect_equal(nrow(ring), 1L)
  expect_equal(2^ring$x, 1024)                            # log2 x scale
  expect_equal(10^ring$y, od$data[plot == 1L & violated == TRUE, median_a_us])
  expect_equal(p$labels$y, "time (\u00b5s, log scale)")
  expect_match(p$labels$x, "bytes")
  expect_equal(levels(p$data$side), c("a: op=neighbor_allgather", "b: op=neighbor_alltoall"))
})

test_that("two sides a few per mille apart at one level (an A/A pair) are not drawn across the whole height", {
  od <- overview_data(tt, groups[1], result$params$name)
  one <- od$data[plot == 1L][1L]
  one[, `:=`(median_a_us = 100, median_b_us = 100.5)]
  built <- ggplot_build(overview_plot(od$plots[1], one))
  range <- 10^built$layout$panel_params[[1]]$y.range
  expect_gte(range[2] / range[1], OVERVIEW_MIN_SPAN)     # the axis spans at least 25 %
  expect_lt(100.5 / 100, (range[2] / range[1])^0.05)    # the pair's gap, a sliver of it
  wide <- od$data[plot == 1L]                           # a group whose times span more keeps its own range
  built <- ggplot_build(overview_plot(od$plots[1], wide))
  times <- range(c(wide$median_a_us, wide$median_b_us))
  span <- built$layout$panel_params[[1]]$y.range
  expect_equal(diff(span), diff(log10(times)) * 1.1)      # its own range and ggplot's 5 % a side
  expect_equal(least_span(c(10, 40)), numeric())
})

test_that("render_plots writes a PNG and, asked for, a PDF per plot", {
  od <- overview_data(tt, groups[1], result$params$name)
  dir <- tempfile("plots-")
  out <- render_plots(od, overview_plot, dir, formats = plot_formats(pdf = TRUE))
  png <- file.path(dir, "plots", "overview-01-GL4-g001.png")
  pdf <- file.path(dir, "plots", "overview-01-GL4-g001.pdf")
  expect_equal(out$png, "plots/overview-01-GL4-g001.png")
  expect_identical(readBin(png, "raw", 4L), as.raw(c(0x89, 0x50, 0x4e, 0x47)))
  expect_identical(rawToChar(readBin(pdf, "raw", 4L)), "%PDF")
})

test_that("a closest call's overview: its own file name, the closest call ringed in grey, no violation", {
  calls <- closest_call_plots(tt, closest_calls(tt, result$p_thres, result$v_thres))
  expect_equal(nrow(calls), 5L)
  od <- overview_data(tt, calls[1], result$params$name, closest = TRUE)
  expect_equal(od$plots$file, sprintf("closest-%s-g%03d", plot_stem(calls$guideline_no[1], tt[test == calls$test[1] & guideline_no == calls$guideline_no[1], tag]), calls$group[1]))
  expect_equal(od$plots$mark, "closest call (not violated)")
  call <- tt[guideline_no == calls$guideline_no[1] & test == calls$test[1]]
  expect_match(od$plots$caption, sprintf("closest call at msize=%d: ratio %.3f", call$msize, call$ratio), fixed = TRUE)
  expect_equal(od$data[marked == TRUE, x_num], call$msize)
  expect_false(any(od$data$violated))
  built <- ggplot_build(overview_plot(od$plots[1], od$data))
  ring <- built$data[[3]]
  expect_equal(nrow(ring), 1L)
  expect_equal(2^ring$x, call$msize)
  expect_equal(ring$colour, "grey35")
})

test_that("a side with one point is drawn without a line (ggplot2's note on a one-point line never comes)", {
  od <- overview_data(tt, groups[1], result$params$name)
  od$data <- od$data[plot == od$data$plot[1]][1]
  expect_silent(ggplot_build(overview_plot(od$plots[1], od$data)) |> ggplot_gtable())
  expect_silent(render_plots(od, overview_plot, tempfile("plots-")))
})
