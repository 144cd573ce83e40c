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

# Writes the planted small archive into a fresh temporary directory.
planted_archive <- function(library = "openmpi", planted = planted_small, seed = 7L, nrun = 8L, ...) {
  dir <- file.path(tempfile("archive-"), paste0("synthetic-", library))
  write_synthetic_archive(dir, synthetic_experiments("small", nrep = 20L), deployments = c("1x4", "2x4"),
                          nrun = nrun, library = library, planted = planted, seed = seed, inputs = FALSE, ...)
  dir
}

# Runs `expr` and returns the messages of the warnings it raised.
warnings_of <- function(expr) {
  messages <- character()
  withCallingHandlers(expr, warning = function(w) {
    messages <<- c(messages, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  messages
}
