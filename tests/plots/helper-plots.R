# The analyzer's test helpers (tests/analyze/helper-analyze.R) and ggplot2.
local({
  root <- Sys.getenv("NBH_ROOT")
  if (!nzchar(root)) root <- normalizePath(file.path(getwd(), "..", ".."))
  source(file.path(root, "tests", "analyze", "helper-analyze.R"), local = globalenv())
})
suppressPackageStartupMessages(library(ggplot2))
