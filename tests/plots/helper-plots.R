# The analyzer's test helpers (tests/analyze/helper-analyze.R) and ggplot2.
local({
  root <- Sys.getenv("NBH_ROOT")
  if (!nzchar(root)) root <- normalizePath(file.path(getwd(), "..", ".."))
  source(file.path(root, "tests", "analyze", "helper-analyze.R"), local = globalenv())
})
suppressPackageStartupMessages(library(ggplot2))

# The right edge (inches from the device's left edge) of each line-bearing
# label of plot p (title, subtitle, caption) when drawn `width` inches
# wide, as render_plots draws it (a Cairo PNG device, its fonts measured).
label_right_edges <- function(p, width, height = 5) {
  file <- tempfile(fileext = ".png")
  grDevices::png(file, width = width, height = height, units = "in", res = 110, type = "cairo")
  on.exit({
    grDevices::dev.off()
    unlink(file)
  })
  g <- ggplotGrob(p)
  inches <- function(x) grid::convertWidth(x, "in", valueOnly = TRUE)
  edges <- c()
  for (name in c("title", "subtitle", "caption")) {
    at <- which(g$layout$name == name)
    if (!length(at) || inherits(g$grobs[[at]], "zeroGrob")) next
    left <- sum(inches(g$widths[seq_len(g$layout$l[at] - 1L)]))
    # A titleGrob stretches (its width is 1null); its text is its child.
    edges[[name]] <- left + inches(grid::grobWidth(g$grobs[[at]]$children[[1]]))
  }
  unlist(edges)
}
