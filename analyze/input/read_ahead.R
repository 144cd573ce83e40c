# The archives' results files, read ahead while R loads the analyzer
# (analyze/native/read_ahead.c): analyze/main.R calls this first, before
# the default packages are attached, so that a forked reader has the
# second core for the 0.3 s in which this process starts; the workers
# take what it has read (reduce_runs). Only with a library compiled
# already (native_library compiles one later) and at least two cores for
# the analysis (NBH_ANALYZE_CORES). Returns the number of results files
# the reader is to read, 0 where none is started.
read_ahead <- function(archives, root = Sys.getenv("NBH_ROOT", ".")) {
  cores <- suppressWarnings(as.integer(Sys.getenv("NBH_ANALYZE_CORES", "")))
  if (!length(archives) || (!is.na(cores) && cores < 2L)) return(0L)
  library_file <- tryCatch(native_library_file(root), error = function(e) "")
  if (!file.exists(library_file)) return(0L)
  load_native(library_file)
  .Call("nbh_read_ahead", path.expand(archives), PACKAGE = NATIVE_NAME)
}

# Once the runs are reduced: a progress line says how many of them the
# workers took from the reader, which is stopped, its memory given back.
end_read_ahead <- function(runs) {
  tally <- call_native("nbh_read_ahead_end")
  if (!is.null(tally) && tally[["taken"]] > 0L) {
    progress(tally[["taken"]], " of the ", runs, " runs were read ahead while R started")
  }
  invisible(tally)
}
