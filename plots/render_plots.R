# Draws an analysis's plots under DIR: plots/<file>.png, and .pdf where
# asked (analyze --pdf; the report shows the PNGs). Every plot of every
# kind goes through one pass of forked workers (one per core, as the runs
# are read) that each take the next plot when free, so that no worker
# waits at the end of one kind while the other draws its last; a progress
# line on stderr says how far they are (plot_progress.R). Each plot (its
# title and captions fitted to the width, fit_labels.R) is built with its
# device open, as ggsave builds it (text is measured by the device: a
# table built for the PNG draws a PDF that differs from ggsave's), and
# the PNG's table is drawn less the cells that draw nothing (zeroGrob:
# empty titles, strips, legends), whose viewports cost up to a third of
# its drawing: the PNG has ggsave's pixels, the PDF ggsave's bytes
# (tests/plots/test-render_plots.R). Each file is checked whole
# (analyze/output/output_files.R).

# One kind of plot: the plot data (pd: plots, data; analyze/output/plot_data.R),
# the function that draws one (draw(plot, data) -> ggplot) and its size in inches.
plot_set <- function(pd, draw, width = 8, height = 5) {
  list(pd = pd, draw = draw, width = width, height = height)
}

# The file formats of an analysis's plots: PNG, and PDF on request.
plot_formats <- function(pdf = FALSE) c("png", if (isTRUE(pdf)) "pdf")

# Draws every plot of sets (a named list of plot_set) in one pass; returns,
# per set, its plots table with the PNG path (relative to DIR) and the
# seconds each plot took. progress(files) makes the function each plot
# reports to when drawn (plot_progress.R).
render_plot_sets <- function(sets, dir, formats = plot_formats(), progress = plot_progress) {
  jobs <- rbindlist(lapply(seq_along(sets), function(k) {
    n <- nrow(sets[[k]]$pd$plots)
    data.table(set = rep(k, n), row = seq_len(n))
  }))
  if (nrow(jobs)) {
    suppressPackageStartupMessages(library(ggplot2))
    dir.create(file.path(dir, "plots"), recursive = TRUE, showWarnings = FALSE)
    files <- vapply(seq_len(nrow(jobs)), function(j) sets[[jobs$set[j]]]$pd$plots$file[jobs$row[j]], "")
    drawn <- progress(files)
    seconds <- unlist(map_in_workers(seq_len(nrow(jobs)), function(j) {
      start <- proc.time()[["elapsed"]]
      s <- sets[[jobs$set[j]]]
      this <- s$pd$plots[jobs$row[j]]
      draw_plot_files(s$draw(this, s$pd$data[plot == this$plot]), file.path(dir, "plots", this$file),
                      s$width, s$height, formats)
      took <- proc.time()[["elapsed"]] - start
      drawn(j, took)
      took
    }))
    jobs[, seconds := seconds]
  }
  lapply(seq_along(sets), function(k) {
    plots <- sets[[k]]$pd$plots
    if (!nrow(plots)) return(plots[, `:=`(png = character(), seconds = numeric())])
    plots[, `:=`(png = file.path("plots", paste0(file, ".png")), seconds = jobs[set == k, seconds])]
  }) |> setNames(names(sets))
}

# One kind of plot alone (render_plot_sets).
render_plots <- function(pd, draw, dir, width = 8, height = 5, formats = plot_formats()) {
  render_plot_sets(list(plot_set(pd, draw, width, height)), dir, formats)[[1]]
}

# Draws ggplot p into STEM.png (and STEM.pdf). Drawn in the session's temporary directory, checked, then
# copied: the devices neither fail nor stay quiet when the disk is full.
# ggplot2's notes while building (a line with one point: "Each group
# consists of only one observation") are not the user's business: the
# point is drawn.
draw_plot_files <- function(p, stem, width, height, formats = plot_formats()) {
  p <- fit_labels(p, width)
  background <- plot_background(p)
  for (ext in formats) {
    drawn <- file.path(tempdir(), paste0(basename(stem), ".", ext))
    if (ext == "png") {
      grDevices::png(drawn, width = width, height = height, units = "in", res = 110, type = "cairo", bg = background)
    } else {
      grDevices::cairo_pdf(drawn, width = width, height = height, bg = background)
    }
    device <- grDevices::dev.cur()
    tryCatch({
      grobs <- suppressMessages(ggplot2::ggplotGrob(p))
      grid::grid.newpage()
      grid::grid.draw(if (ext == "png") drawn_cells(grobs) else grobs)
    }, finally = grDevices::dev.off(device))
    check_plot_file(drawn)
    copy_output_file(drawn, paste0(stem, ".", ext))
    unlink(drawn)
  }
  invisible(stem)
}

# The background colour ggsave gives a plot's devices: its theme's.
plot_background <- function(p) {
  theme <- p$theme
  if (!isTRUE(attr(theme, "complete"))) theme <- ggplot2::theme_grey() + theme
  ggplot2::calc_element("plot.background", theme)$fill %||% "transparent"
}

# The table of grobs less its cells that draw nothing.
drawn_cells <- function(table) {
  keep <- !vapply(table$grobs, inherits, TRUE, "zeroGrob")
  table$grobs <- table$grobs[keep]
  table$layout <- table$layout[keep, , drop = FALSE]
  table
}
