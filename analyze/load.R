# Loads the analyzer (analyze/*.R) and the plots (plots/*.R): functions
# only; analyze/main.R is the command's entry point.
suppressPackageStartupMessages({
  library(data.table)
  library(jsonlite)
})
local({
  here <- Sys.getenv("NBH_ROOT", ".")
  for (dir in c("analyze", "plots")) {
    for (f in sort(list.files(file.path(here, dir), pattern = "\\.R$", full.names = TRUE))) {
      if (!basename(f) %in% c("main.R", "load.R")) sys.source(f, envir = globalenv())
    }
  }
})
