# Writes each plot as PNG and PDF under DIR: plots/<file>.png, .pdf, in
# forked workers (one per core, as the runs are read). Returns the plots
# table with the PNG path (relative to DIR) and the seconds each plot took.

render_plots <- function(pd, draw, dir, width = 8, height = 5) {
  if (!nrow(pd$plots)) return(pd$plots[, `:=`(png = character(), seconds = numeric())])
  suppressPackageStartupMessages(library(ggplot2))
  dir.create(file.path(dir, "plots"), recursive = TRUE, showWarnings = FALSE)
  seconds <- unlist(map_in_workers(seq_len(nrow(pd$plots)), function(i) {
    start <- proc.time()[["elapsed"]]
    this <- pd$plots[i]
    p <- draw(this, pd$data[plot == this$plot])
    base <- file.path(dir, "plots", this$file)
    ggsave(paste0(base, ".png"), p, width = width, height = height, dpi = 110, type = "cairo")
    ggsave(paste0(base, ".pdf"), p, width = width, height = height, device = cairo_pdf)
    proc.time()[["elapsed"]] - start
  }))
  pd$plots[, `:=`(png = file.path("plots", paste0(file, ".png")), seconds = seconds)]
}
