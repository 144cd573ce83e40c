# A series of small synthetic archives for the history's tests
# (tests/analyze/synthetic_archive.R), the same campaign measured again and
# again, with a slowdown planted from one archive on:
#   Rscript tests/history/synthetic_series.R OUT COUNT SLOW_FROM FACTOR [NRUN]
# writes OUT/a01, OUT/a02, ...: the `small` campaign's GL4 and GL9
# experiments at 1x4, NRUN runs (default 8) of 10 repetitions, and from
# archive SLOW_FROM on (0: none) neighbor_allgather at msize 1024 on cart
# FACTOR times slower (GL4, allgather <= alltoall, violated there). Each
# archive's noise has its own seed. history_testing.py gives each archive
# its date, release and MANIFEST.sha256.
source(file.path(Sys.getenv("NBH_ROOT", "."), "tests", "analyze", "synthetic_archive.R"))

args <- commandArgs(TRUE)
out <- args[1]
count <- as.integer(args[2])
slow_from <- as.integer(args[3])
factor <- as.numeric(args[4])
nrun <- if (length(args) >= 5L) as.integer(args[5]) else 8L
experiments <- synthetic_experiments("small", nrep = 10L)[ndim == 2L & reorder == 0L & nfin == 0L]
experiments[, id := .I - 1L]
assessment <- c("[collectives]", "parameter = op", "varied = msize", "GL4: neighbor_allgather <= neighbor_alltoall",
                "", "[orders]", "parameter = order", "varied = msize", "GL11: FMAJ <= RAND")
for (i in seq_len(count)) {
  planted <- if (slow_from > 0L && i >= slow_from) {
    list(list(where = list(op = "neighbor_allgather", msize = 1024L, topology = "cart"), factor = factor))
  } else list()
  write_synthetic_archive(file.path(out, sprintf("a%02d", i)), experiments, deployments = "1x4", nrun = nrun,
                          planted = planted, seed = 100L + i, assessment = assessment, campaign = "series")
}
