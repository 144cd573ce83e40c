# Writes each plot as PNG and PDF under DIR: plots/<file>.png, .pdf, in
# forked workers (one per core, as the runs are read), its title and
# captions fitted to the width (fit_labels.R), each file checked
# whole (analyze/output/output_files.R). Returns the plots table with the PNG path
# (relative to DIR) and the seconds each plot took.

render_plots <- function(pd, draw, dir, width = 8, height = 5) {
  if (!nrow(pd$plots)) return(pd$plots[, `:=`(png = character(), seconds = numeric())])
  suppressPackageStartupMessages(library(ggplot2))
  dir.create(file.path(dir, "plots"), recursive = TRUE, showWarnings = FALSE)
  seconds <- unlist(map_in_workers(seq_len(nrow(pd$plots)), function(i) {
    start <- proc.time()[["elapsed"]]
    this <- pd$plots[i]
    p <- fit_labels(draw(this, pd$data[plot == this$plot]), width)
    # Drawn in the session's temporary directory, checked, then copied: the
    # devices neither fail nor stay quiet when DIR's disk is full. ggplot2's
    # notes while drawing (a line with one point: "Each group consists of
    # only one observation") are not the user's business: the point is drawn.
    for (ext in c(".png", ".pdf")) {
      drawn <- file.path(tempdir(), paste0(this$file, ext))
      suppressMessages(
        if (ext == ".png") ggsave(drawn, p, width = width, height = height, dpi = 110, type = "cairo")
        else ggsave(drawn, p, width = width, height = height, device = cairo_pdf))
      check_plot_file(drawn)
      copy_output_file(drawn, file.path(dir, "plots", paste0(this$file, ext)))
      unlink(drawn)
    }
    proc.time()[["elapsed"]] - start
  }))
  pd$plots[, `:=`(png = file.path("plots", paste0(file, ".png")), seconds = seconds)]
}
