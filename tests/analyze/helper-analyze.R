# Loaded by testthat before the tests of this folder: the analyzer, the
# synthetic archive generator, and small builders of hand-made inputs.
nbh_root <- Sys.getenv("NBH_ROOT")
if (!nzchar(nbh_root)) {
  nbh_root <- normalizePath(file.path(getwd(), "..", ".."))
  Sys.setenv(NBH_ROOT = nbh_root)
}
source(file.path(nbh_root, "analyze", "load.R"))
source(file.path(nbh_root, "tests", "analyze", "synthetic_archive.R"))
setDTthreads(1L)
compiler::enableJIT(0L)   # as analyze/main.R: compiling the functions costs more than it gains

# Cells of a hand-made analysis: one row per cell with the given columns.
make_cells <- function(...) {
  cells <- data.table(...)
  cells[, cell := .I]
  setcolorder(cells, "cell")
  cells[]
}

# Run medians: one row per (cell, run) from a list cell -> values.
make_medians <- function(values) {
  rbindlist(lapply(names(values), function(c) {
    data.table(cell = as.integer(c), run = seq_along(values[[c]]), median = values[[c]])
  }))
}

guideline <- function(a, b, relation = "<=", varied = "msize", text = "a <= b") {
  list(a = a, b = b, relation = relation, varied = varied, text = text, where = "test")
}

# The planted test archive: see test-planted_violations.R.
planted_small <- list(
  list(where = list(op = "neighbor_allgather", topology = "cart", nfin = 0, reorder = 0, msize = 1024,
                    deployment = "1x4"), factor = 1.25),
  list(where = list(op = "neighbor_alltoall", topology = "vneum", order = "RAND", nfin = 2, reorder = 1,
                    msize = 16384, deployment = "2x4"), factor = 1.3),
  list(where = list(op = "neighbor_allgather", topology = "vneum", order = "FMAJ", nfin = 0, reorder = 0,
                    msize = 256, deployment = "1x4"), factor = 1.01))

# The archive in DIR as reduce_runs takes it: list(archives, frame).
reduce_inputs <- function(dir, registry = read_registry(nbh_root)) {
  archives <- list(read_archive(dir, registry))
  list(archives = archives, frame = combine_archives(archives, analysis_parameters(registry)))
}

# Makes results file FILE not clean: the time of its line LINE -1
# (read_results drops that row, warning of a malformed row).
spoil_time <- function(file, line = 5L) {
  lines <- readLines(file)
  lines[line] <- sub(",[^,]*,([^,]*)$", ",-1,\\1", lines[line])
  writeLines(lines, file)
}

# Writes the planted small archive into a fresh temporary directory.
planted_archive <- function(library = "openmpi", planted = planted_small, seed = 7L, nrun = 8L, ...) {
  dir <- file.path(tempfile("archive-"), paste0("synthetic-", library))
  write_synthetic_archive(dir, synthetic_experiments("small", nrep = 20L), deployments = c("1x4", "2x4"),
                          nrun = nrun, library = library, planted = planted, seed = seed, inputs = FALSE, ...)
  dir
}

# The violated tests of an analysis of the planted archive, and the ones
# planted_small plants (test-planted_violations.R says which and why).
violated_cells <- function(result) {
  tt <- test_table(result)
  tt[violated == TRUE, .(tag, deployment, op, topology, order, nfin, reorder, msize, slower)]
}
planted_expected <- data.table(
  tag = c("GL4", "GL9", "GL12"), deployment = c("1x4", "1x4", "2x4"),
  op = c(NA, "neighbor_allgather", "neighbor_alltoall"), topology = c("cart", NA, "vneum"),
  order = c(NA, NA, "RAND"), nfin = c(0L, 0L, 2L), reorder = c(0L, 0L, NA), msize = c(1024L, 1024L, 16384L),
  slower = "a")


# Runs `expr` and returns the messages of the warnings it raised.
warnings_of <- function(expr) {
  messages <- character()
  withCallingHandlers(expr, warning = function(w) {
    messages <<- c(messages, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  messages
}

# The tuning archive of test-heal_table.R: parameter sets default, fixA and
# fixB, deployments 1x4 and 2x4, 8 runs, four planted cells:
#   X  neighbor_allgather cart nfin=0 reorder=0 msize=1024 1x4, x1.3 under default
#      and fixB: violates GL4 and GL9 there; fixA removes both (and is faster in X)
#   Y  neighbor_alltoall vneum RAND nfin=2 reorder=1 msize=16384 2x4, x1.3 under
#      fixA: violates GL12 (reorder=1 <= reorder=0) under fixA only (added)
#   Z  neighbor_alltoall vneum RAND nfin=0 reorder=0 msize=256 1x4, x1.3 under
#      fixA: only ever a b side, so fixA is slower there without a violation
#   W  neighbor_allgather cart nfin=2 reorder=1 msize=256 2x4, x0.7 under fixB:
#      only ever an a side, so fixB is faster there without a violation
tuning_cells <- list(
  X = list(op = "neighbor_allgather", topology = "cart", nfin = 0, reorder = 0, msize = 1024, deployment = "1x4"),
  Y = list(op = "neighbor_alltoall", topology = "vneum", order = "RAND", nfin = 2, reorder = 1, msize = 16384,
           deployment = "2x4"),
  Z = list(op = "neighbor_alltoall", topology = "vneum", order = "RAND", nfin = 0, reorder = 0, msize = 256,
           deployment = "1x4"),
  W = list(op = "neighbor_allgather", topology = "cart", nfin = 2, reorder = 1, msize = 256, deployment = "2x4"))

tuning_archive <- function(...) {
  dir <- file.path(tempfile("tuning-"), "tuning")
  planted <- list(list(where = c(tuning_cells$X, list(param_set = c("default", "fixB"))), factor = 1.3),
                  list(where = c(tuning_cells$Y, param_set = "fixA"), factor = 1.3),
                  list(where = c(tuning_cells$Z, param_set = "fixA"), factor = 1.3),
                  list(where = c(tuning_cells$W, param_set = "fixB"), factor = 0.7))
  sets <- list(default = character(),
               fixA = c(coll_tuned_use_dynamic_rules = "true", coll_tuned_alltoall_intermediate_msg = "256"),
               fixB = c(coll_tuned_use_dynamic_rules = "true", coll_tuned_alltoall_algorithm = "2"))
  write_synthetic_archive(dir, synthetic_experiments("small", nrep = 20L), deployments = c("1x4", "2x4"),
                          nrun = 8L, param_sets = sets, planted = planted, seed = 5L, inputs = FALSE, ...)
  dir
}

# An assessment file with the given lines.
assessment_file <- function(...) {
  f <- tempfile(fileext = ".conf")
  writeLines(c(...), f)
  f
}
