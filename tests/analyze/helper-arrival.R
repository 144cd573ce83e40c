# An arrival archive with known answers (test-arrival.R): neighbor_alltoall
# on a ring of 4 processes (1x4), msize 64 and 1024 B, arrival none,
# one_late (d = 500 us, the late process p/2 = 2, whose neighbors are 1
# and 3; process 0 is the other) and uniform (d = 500 us); 8 runs. Every
# time is a true time in us times a per-run and a per-repetition noise (1 %).
#   none       every process 20, the slowest 20; no delay
#   one_late   at 64 B the node stretched the late process's wait to 600 us
#              (measured delay): it takes 620, its neighbors 622, the other
#              20 (the delay stays in the neighborhood), the slowest 622; at
#              1024 B its delay is 500 and it takes 520, its neighbors 522,
#              the other 521 (a library that synchronises globally), the
#              slowest 700
#   uniform    the slowest process's delay 450, the slowest 470, every
#              process 250
# So AR1 (b = 20 + the measured delay, threshold 1.10) is violated by
# one_late at 1024 B only (at 64 B 622 against 620; the nominal 500 would
# have charged the stretched wait to the library), and AR2 (the other
# process against itself without delay plus d/2 = 250) too.
ARRIVAL_ROLES <- c("other", "neighbor", "late", "neighbor")   # ranks 0..3

arrival_truth <- function(arrival, msize, rank = NA) {
  bad <- msize == 1024
  if (arrival == "none") return(20)
  if (arrival == "uniform") return(if (is.na(rank)) 470 else 250)
  if (is.na(rank)) return(if (bad) 700 else 622)
  switch(ARRIVAL_ROLES[rank + 1L], late = if (bad) 520 else 620, neighbor = if (bad) 522 else 622,
         other = if (bad) 521 else 20)
}

# The slowest process's delay as measured, us.
arrival_delay <- function(arrival, msize) {
  switch(arrival, none = 0, uniform = 450, one_late = if (msize == 1024) 500 else 600)
}

arrival_experiments <- function(nrep = 10L) {
  x <- CJ(arrival = c("none", "one_late", "uniform"), msize = c(64L, 1024L), sorted = FALSE)
  x[, `:=`(id = .I, op = "neighbor_alltoall", topology = "cart", constructor = "cart_create", ndim = 1L, nfin = 0L,
           radius = NA_integer_, order = NA_character_, reorder = 0L, datatype = "byte", nrep = nrep, work_us = 0,
           work_factor = 0, arrival_us = fifelse(arrival == "none", NA_real_, 500), late_rank = NA_integer_,
           sync = "barrier")]
  setcolorder(x, c("id", "op", "topology", "constructor", "ndim", "nfin", "radius", "order", "reorder", "datatype",
                   "msize", "nrep", "work_us", "work_factor", "arrival", "arrival_us", "late_rank", "sync"))
  x[]
}

# Writes the archive; ranks = FALSE leaves out the RUN.ranks.csv files (an
# archive made before the kernel wrote them).
arrival_archive <- function(assessment, nrun = 8L, ranks = TRUE, seed = 5L) {
  dir <- file.path(tempfile("arrival-"), "arrival")
  experiments <- arrival_experiments()
  set.seed(seed)
  write_synthetic_archive(dir, experiments[, 1:13], deployments = "1x4", nrun = nrun, seed = seed, inputs = FALSE,
                          assessment = assessment, campaign = "arrival")
  fwrite(experiments, file.path(dir, "experiments.csv"), na = "")
  noise <- function(n) exp(rnorm(n, 0, 0.01))
  for (run_id in fread(file.path(dir, "runs.csv"))$run_id) {
    run <- noise(1)
    r <- experiments[rep(seq_len(.N), nrep), .(id, arrival, msize)]
    r[, rep := seq_len(.N) - 1L, by = id]
    r[, seconds := mapply(arrival_truth, arrival, msize) * run * noise(.N) * 1e-6]
    r[, delay_seconds := mapply(arrival_delay, arrival, msize) * noise(.N) * 1e-6]
    fwrite(r[order(id, rep), .(id, rep, seconds, work_seconds = 0, delay_seconds)],
           file.path(dir, "results", paste0(run_id, ".results.csv")))
    if (!ranks) next
    k <- experiments[, .(rank = 0:3), by = .(id, arrival, msize)]
    k[, `:=`(seconds = mapply(arrival_truth, arrival, msize, rank) * run * noise(.N) * 1e-6,
             delay_seconds = fifelse(arrival == "one_late" & rank == 2L, fifelse(msize == 1024L, 500e-6, 600e-6),
                                     fifelse(arrival == "uniform", 250e-6, 0)),
             role = fifelse(arrival == "one_late", ARRIVAL_ROLES[rank + 1L], ""))]
    fwrite(k[, .(id, rank, seconds, delay_seconds, role)], file.path(dir, "results", paste0(run_id, ".ranks.csv")))
  }
  dir
}

arrival_assessment <- function(...) {
  c("[arrival]", "parameter = arrival", "varied = msize", ...)
}
