# What tests/analyze/test_percentiles.py compares with numpy: for one
# archive, the cell percentiles (cell_percentiles) and each run's P90 and
# P99 (reduce_runs), every number as a hexadecimal float (exact).
#
#   Rscript tests/analyze/percentiles_of_archive.R ARCHIVE OUT_PREFIX [c|r]
#
# c: as the analysis computes them (the C routines); r: with the C library
# unavailable, so that reduce_runs and cell_percentiles take their R code.
# Writes OUT_PREFIX.cells.csv (deployment, id, count, p50, ...) and
# OUT_PREFIX.runs.csv (deployment, run_id, id, p90, p99).
args <- commandArgs(TRUE)
root <- Sys.getenv("NBH_ROOT", ".")
source(file.path(root, "analyze", "load.R"))
if (identical(args[3], "r")) {
  none <- tempfile("no-native-")   # a root whose analyze/native has no C
  dir.create(file.path(none, "analyze", "native"), recursive = TRUE)
  Sys.setenv(NBH_ROOT = none)
  stopifnot(is.null(suppressWarnings(native_library())))
}
registry <- read_registry(root)
params <- analysis_parameters(registry)
archives <- list(read_archive(args[1], registry))
frame <- combine_archives(archives, params)
medians <- suppressWarnings(reduce_runs(archives, frame, cores = 2L))
percentiles <- cell_percentiles(medians)
hex <- function(x) sprintf("%a", x)
cells <- frame$cells[percentiles$cell, .(exp, deployment)]
cells[frame$ids, on = "exp", id := i.id]
fwrite(data.table(deployment = cells$deployment, id = cells$id, count = percentiles$count,
                  p50 = hex(percentiles$p50), p90 = hex(percentiles$p90), p99 = hex(percentiles$p99),
                  count_kept = percentiles$count_kept, p50_kept = hex(percentiles$p50_kept),
                  p90_kept = hex(percentiles$p90_kept), p99_kept = hex(percentiles$p99_kept)),
       paste0(args[2], ".cells.csv"))
runs <- frame$runs[medians$run, .(deployment, run_id)]
exp <- frame$cells$exp[medians$cell]
fwrite(data.table(deployment = runs$deployment, run_id = runs$run_id, id = frame$ids$id[match(exp, frame$ids$exp)],
                  p90 = hex(medians$p90), p99 = hex(medians$p99)), paste0(args[2], ".runs.csv"))
