# Bare fread of every results file of an archive, with all threads: the
# baseline of bench-analyze. Prints the best of three and all three times.
suppressPackageStartupMessages(library(data.table))
setDTthreads(0L)
files <- list.files(file.path(commandArgs(TRUE)[1], "results"), pattern = "\\.results\\.csv$", full.names = TRUE)
times <- vapply(1:3, function(i) {
  start <- proc.time()[["elapsed"]]
  x <- lapply(files, fread)
  rows <<- sum(vapply(x, nrow, 0L))
  proc.time()[["elapsed"]] - start
}, 0)
cat(sprintf("files %d\nrows %d\nfread_best %.3f\nfread_all %s\nthreads %d\n", length(files), rows, min(times),
            paste(sprintf("%.2f", times), collapse = " "), getDTthreads()))
