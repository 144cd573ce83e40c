# Loads the analyzer and the plots: functions only; analyze/main.R is the
# command's entry point. The folders are the pipeline's stages:
#   analyze/          the whole (analyze_archives.R), conditions, registry,
#                     the C routines (native_routines.R, native/)
#   analyze/input/    archives, results files, their checks, run layout
#   analyze/reduce/   Tukey filter, run medians, measured work
#   analyze/assess/   assessments, side matching, tests, intervals, power,
#                     adjustment, regression, overlap, parameter sets
#   analyze/output/   tables, report, plot data, output files
#   plots/            drawing what analyze/ computed
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
  stages <- c("analyze", file.path("analyze", c("input", "reduce", "assess", "output")), "plots")
  for (dir in stages) {
    for (f in sort(list.files(file.path(here, dir), pattern = "\\.R$", full.names = TRUE))) {
      # the entry points (main.R, plan_main.R) and this file are not functions
      if (!grepl("main\\.R$", basename(f)) && basename(f) != "load.R") sys.source(f, envir = globalenv())
    }
  }
})
