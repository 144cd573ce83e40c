# Bare fread of every results file of an archive (the baseline of
# bench-analyze): Rscript fread.R ARCHIVE THREADS. Prints the seconds of
# one pass over the files and the CPU seconds of its threads (R start-up
# not included), the files and rows.
suppressPackageStartupMessages(library(data.table))
args <- commandArgs(TRUE)
setDTthreads(as.integer(args[2]))
files <- list.files(file.path(args[1], "results"), pattern = "\\.results\\.csv$", full.names = TRUE)
start <- proc.time()
x <- lapply(files, fread)
took <- proc.time() - start
cat(sprintf("seconds %.3f\ncpu %.3f\nfiles %d\nrows %d\nthreads %d\n", took[["elapsed"]],
            took[["user.self"]] + took[["sys.self"]], length(files), sum(vapply(x, nrow, 0L)), getDTthreads()))
