# docs/examples/releases/2026-11-27/openmpi5-vs-openmpi regression-01: its one faster
# cell was drawn under the grey points of no change at the same spot.
cells <- data.table(plot = 1L, op = "neighbor_alltoall", msize = c(64L, 64L, 64L, 1024L, 1024L, 1024L),
                    line = c("a", "b", "c", "a", "b", "c"), ratio = c(0.66, 0.66, 0.65, 0.9, 1.2, 0.95),
                    low = c(0.5, 0.6, 0.6, 0.8, 1.1, 0.9), high = c(0.88, 0.7, 0.7, 1, 1.3, 1),
                    verdict = c("faster", "no change", "no change", "no change", "slower", "no change"))
plot <- data.table(plot = 1L, title = "new / baseline: openmpi5 default vs baseline openmpi default, 1x4",
                   caption = "cells")

test_that("the regression plot draws the slower and faster cells above the grey ones of no change", {
  built <- ggplot_build(regression_plot(plot, cells))
  palette <- REGRESSION_COLOURS
  drawn <- rbindlist(lapply(seq_along(built$data), function(i) {
    d <- built$data[[i]]
    if (!all(c("x", "y", "colour", "shape") %in% names(d))) return(NULL)   # the points
    data.table(layer = i, row = seq_len(nrow(d)), x = 2^d$x, y = 10^d$y, colour = d$colour)
  }))
  expect_equal(nrow(drawn), nrow(cells))
  setorder(drawn, layer, row)
  # The last point drawn at 64 B near 0.66 is the faster cell's green, on top.
  spot <- drawn[x == 64 & abs(y - 0.66) < 0.02]
  expect_equal(nrow(spot), 3L)
  expect_equal(spot$colour[nrow(spot)], palette[["faster"]])
  # Every coloured point comes after every grey one; so do the intervals.
  expect_true(max(which(drawn$colour == palette[["no change"]])) < min(which(drawn$colour != palette[["no change"]])))
  bars <- rbindlist(lapply(seq_along(built$data), function(i) {
    d <- built$data[[i]]
    if (!all(c("ymin", "ymax", "colour") %in% names(d)) || "shape" %in% names(d)) return(NULL)
    data.table(layer = i, colour = d$colour)
  }))
  expect_true(max(bars[colour == palette[["no change"]], layer]) < min(bars[colour != palette[["no change"]], layer]))
})
