# The report's first picture: guidelines against (library, deployment), from
# summary.csv's counts (analyze/output/verdict_map_data.R, plots/verdict_map.R).
summary_rows <- function() {
  s <- data.table(
    guideline_no = c(1L, 1L, 1L, 1L, 2L, 2L, 2L, 2L, 3L, 3L),
    tag = c(rep("GL4", 4), rep("GL7", 4), NA, NA),
    guideline = c(rep("neighbor_allgather <= neighbor_alltoall", 4), rep("allgather <= neighbor_allgather", 4),
                  rep("openmpi ~ mpich", 2)),
    library = c("openmpi", "openmpi", "mpich", "mpich", "openmpi", "openmpi", "mpich", "mpich", NA, NA),
    param_set = c(rep("default", 8), NA, NA),
    deployment = c("1x4", "1x16", "1x4", "1x16", "1x4", "1x16", "1x4", "1x16", "1x4", "1x16"),
    nprocs = c(4L, 16L, 4L, 16L, 4L, 16L, 4L, 16L, 4L, 16L),
    n_vio_tests = c(0L, 3L, 0L, 0L, 30L, 0L, 0L, 2L, 90L, 0L),
    n_tests = c(60L, 60L, 60L, 60L, 30L, 30L, 30L, 30L, 180L, 180L),
    power = c("ok", "ok", "cannot detect", "ok", "ok", "ok", "ok", "ok", "ok", "cannot detect"),
    n_holds_tests = c(60L, 50L, 0L, 52L, 0L, 30L, 1L, 28L, 0L, 0L))
  s[, n_open_tests := n_tests - n_vio_tests - n_holds_tests]
  s[, set := "s"][]
}

test_that("verdict map data: a cell per guideline and context, its counts, share and power", {
  pd <- verdict_map_data(summary_rows(), 0.001)
  d <- pd$data
  expect_equal(nrow(d), 10L)
  expect_equal(levels(d$row), c("GL4: neighbor_allgather <= neighbor_alltoall", "GL7: allgather <= neighbor_allgather",
                                "openmpi ~ mpich"))
  expect_equal(levels(d$panel), c("mpich", "openmpi", "libraries compared"))
  expect_equal(levels(d$column), c("1x4", "1x16"))      # by processes, not alphabetically
  expect_equal(d[panel == "openmpi" & column == "1x16" & row == levels(row)[1], .(label, share, open_share)],
               data.table(label = "3/50/7", share = 0.05, open_share = 7 / 60))
  # all three decisions: 0 violated and 59 open of 60 is no pass
  expect_equal(d[panel == "mpich" & column == "1x4" & row == levels(row)[1], .(label, open_share)],
               data.table(label = "0/0/60", open_share = 1))
  expect_equal(d[cannot_detect == TRUE, as.character(panel)], c("mpich", "libraries compared"))
  expect_equal(pd$plots$title, "125 of 720 tests violated, 221 hold, 374 open, over 3 guidelines")
  expect_match(pd$plots$caption, "Hatched: cannot detect.*\\(2 of 10 cells\\)")
  expect_equal(c(pd$plots$rows, pd$plots$columns), c(3L, 6L))
})

test_that("with several parameter sets a column is the set and the deployment", {
  s <- rbind(summary_rows()[1:2], summary_rows()[1:2][, param_set := "tuned"])
  expect_equal(levels(verdict_map_data(s, 0.001)$data$column), c("default 1x4", "default 1x16", "tuned 1x4",
                                                                 "tuned 1x16"))
})

test_that("the map colours each cell by its share, labels it with its counts and hatches cannot detect", {
  pd <- verdict_map_data(summary_rows(), 0.001)
  built <- ggplot_build(verdict_map(pd$plots, pd$data))
  tiles <- as.data.table(built$data[[1]])
  expect_equal(nrow(tiles), 10L)
  expect_equal(tiles[fill %in% c("#FFFFFF", "white"), .N], 0L)   # never white: a cell says what it decided
  # no violated test: green where all hold, grey where all are open
  expect_equal(tiles[toupper(fill) == toupper(VERDICT_HOLD), .N], 2L)
  expect_equal(tiles[toupper(fill) == toupper(VERDICT_OPEN), .N], 2L)
  labels <- as.data.table(built$data[[3]])
  expect_setequal(labels$label, pd$data$label)
  # The hatch: every stroke inside a tile, and the tiles so struck are the cannot-detect cells.
  hatch <- as.data.table(built$data[[2]])
  expect_gt(nrow(hatch), 0L)
  struck <- unique(rbindlist(lapply(seq_len(nrow(hatch)), function(i) {
    h <- hatch[i]
    tiles[PANEL == h$PANEL & xmin - 1e-9 <= pmin(h$x, h$xend) & pmax(h$x, h$xend) <= xmax + 1e-9 &
            ymin - 1e-9 <= pmin(h$y, h$yend) & pmax(h$y, h$yend) <= ymax + 1e-9]
  })))
  expect_equal(nrow(struck), 2L)
  panels <- as.data.table(built$layout$layout)
  where <- struck[, .(panel = as.character(panels$panel[match(PANEL, panels$PANEL)]),
                      column = mapply(function(p, x) built$layout$panel_params[[p]]$x$get_labels()[x], PANEL, x),
                      row = rev(levels(pd$data$row))[y])]
  expect_equal(where[order(panel)], pd$data[cannot_detect == TRUE, .(panel = as.character(panel),
                                                                    column = as.character(column),
                                                                    row = as.character(row))][order(panel)],
               ignore_attr = TRUE)
  # A legend entry names the hatching.
  linetype <- built$plot$scales$get_scales("linetype")
  expect_equal(linetype$get_labels(), "cannot detect (too few runs)")
})

test_that("a sweep's column heads do not run into each other: two lines as wide as the column, or upright", {
  sweep <- function(sets) {
    s <- rbindlist(lapply(sets, function(name) copy(summary_rows()[1:2])[, param_set := name]))
    verdict_map_data(s, 0.001)
  }
  measured <- function(lines) {   # inches at the heads' size, as the PNG device draws them
    grDevices::pdf(NULL)
    on.exit(grDevices::dev.off())
    vapply(lines, function(l) grid::convertWidth(grid::grobWidth(grid::textGrob(l, gp = grid::gpar(
      fontsize = VERDICT_HEAD_PT))), "inches", valueOnly = TRUE), 0)
  }
  few <- sweep(c("default", "intermediate256", "linear_sync"))
  heads <- verdict_column_heads(few$plots, few$data)
  expect_equal(heads$angle, 0)
  shown <- heads$label(levels(few$data$column))
  expect_equal(shown[1:2], c("default\n1x4", "default\n1x16"))
  expect_true(all(measured(unlist(strsplit(shown, "\n"))) < heads$width))
  expect_equal(verdict_map_size(few$plots, few$data)[["width"]],
               verdict_label_inches(few$data) + heads$width * few$plots$columns + 2.4)
  many <- sweep(c("default", "linear", "pairwise", "modified_bruck", "linear_sync", "two_proc", "intermediate256"))
  heads <- verdict_column_heads(many$plots, many$data)
  expect_equal(heads$angle, 90)     # 14 columns of two lines would be wider than the map may be
  expect_true(measured("0/60") < heads$width)
  expect_gt(verdict_map_size(many$plots, many$data)[["height"]], verdict_map_size(few$plots, few$data)[["height"]])
  built <- ggplot_build(verdict_map(many$plots, many$data))
  expect_equal(built$plot$theme$axis.text.x.top$angle, 90)
})
