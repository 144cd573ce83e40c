# A progress archive with known answers (test-progress.R): neighbor_alltoall
# in its three forms on a Cartesian grid, work_factor 0 and 1, msize 1 KiB
# and 64 KiB, one deployment, 8 runs; every time is a true time in µs
# times a per-run and a per-repetition noise (lognormal, 1 %).
#   without work (work_factor 0): every form 100 µs
#   busy work as measured (work_factor 1): 100 µs (the nominal is not written)
#   with work (work_factor 1):
#     ineighbor_alltoall       1 KiB: 105 (overlap 95 %), 64 KiB: 200 (0 %)
#     neighbor_alltoall_init   150 at both sizes (overlap 50 %)
#     neighbor_alltoall        200 at both sizes (blocking, then the work: 0 %)
# So GL16 (ratio threshold 1.10) is violated by the nonblocking form at
# 64 KiB only, and by the persistent form at both sizes.
progress_truth <- function(op, msize, work_factor) {
  if (work_factor == 0) return(100)
  switch(op, ineighbor_alltoall = if (msize == 1024) 105 else 200, neighbor_alltoall_init = 150,
         neighbor_alltoall = 200)
}

progress_experiments <- function(nrep = 12L, work_factor = TRUE) {
  x <- CJ(op = c("neighbor_alltoall", "ineighbor_alltoall", "neighbor_alltoall_init"), work_factor = c(0, 1),
          msize = c(1024L, 65536L), sorted = FALSE)
  x[, `:=`(id = .I, topology = "cart", constructor = "cart_create", ndim = 2L, nfin = 0L, radius = NA_integer_,
           order = NA_character_, reorder = 0L, datatype = "byte", nrep = nrep, work_us = 0)]
  setcolorder(x, c("id", "op", "topology", "constructor", "ndim", "nfin", "radius", "order", "reorder", "datatype",
                   "msize", "nrep", "work_us", "work_factor"))
  if (!work_factor) x <- x[work_factor == 0][, work_factor := NULL]
  x[]
}

# Writes the archive; `work_seconds = FALSE` writes results as kernels did
# before they measured the work (id,rep,seconds), `work_factor = FALSE` an
# experiments.csv without the column.
progress_archive <- function(assessment, nrun = 8L, work_seconds = TRUE, work_factor = TRUE, seed = 3L) {
  dir <- file.path(tempfile("progress-"), "progress")
  experiments <- progress_experiments(work_factor = work_factor)
  truth <- if (work_factor) experiments[, .(id, us = mapply(progress_truth, op, msize, work_factor), work = work_factor > 0)]
           else experiments[, .(id, us = 100, work = FALSE)]
  set.seed(seed)
  write_synthetic_archive(dir, experiments[, intersect(names(experiments), names(progress_experiments(FALSE))), with = FALSE],
                          deployments = "1x4", nrun = nrun, seed = seed, inputs = FALSE, assessment = assessment,
                          campaign = "progress")
  fwrite(experiments, file.path(dir, "experiments.csv"), na = "")
  for (run_id in fread(file.path(dir, "runs.csv"))$run_id) {
    run <- exp(rnorm(1, 0, 0.01))
    r <- truth[rep(seq_len(.N), each = experiments$nrep[1])]
    r[, rep := seq_len(.N) - 1L, by = id]
    r[, seconds := us * run * exp(rnorm(.N, 0, 0.01)) * 1e-6]
    r[, work_seconds := fifelse(work, 100 * run * exp(rnorm(.N, 0, 0.01)) * 1e-6, 0)]
    out <- if (work_seconds) r[, .(id, rep, seconds, work_seconds)] else r[, .(id, rep, seconds)]
    fwrite(out, file.path(dir, "results", paste0(run_id, ".results.csv")))
  }
  dir
}

progress_assessment <- function(...) {
  c("[progress]", "parameter = op", "varied = msize", ...)
}
