# Loads the analyzer (analyze/*.R) and the plots (plots/*.R): functions
# only; analyze/main.R is the command's entry point.
suppressPackageStartupMessages({
  library(data.table)
  library(jsonlite)
})
# Plots are written to the files render_plots names. A device R opens on
# its own (a plot drawn or a grob measured with none open) draws to nothing
# instead of leaving an Rplots.pdf in the working directory.
options(device = function(...) grDevices::pdf(file = NULL))
local({
  here <- Sys.getenv("NBH_ROOT", ".")
  for (dir in c("analyze", "plots")) {
    for (f in sort(list.files(file.path(here, dir), pattern = "\\.R$", full.names = TRUE))) {
      if (!basename(f) %in% c("main.R", "load.R")) sys.source(f, envir = globalenv())
    }
  }
})
