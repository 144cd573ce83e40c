# Entry point of `nbhbench analyze` (libexec/nbhbench-analyze checks the
# options and calls this with canonical ones):
#   Rscript analyze/main.R --out=DIR [--assess=FILE] [--p-thres=P] [--v-thres=V]
#           [--reference-set=NAME] [--fail-on-violation] [--no-plots] [--max-plots=N]
#           [--baseline=ARCHIVE ...] -- ARCHIVE...
# Exit status: 0 analysed; 2 bad input (one line on stderr); 3 something is
# violated and --fail-on-violation (with --baseline: a cell is slower than
# in the baseline); 4 the output cannot be written; 1 a bug.

parse_main_args <- function(args) {
  opts <- list(assess = NULL, p_thres = 0.001, v_thres = 1.03, fail = FALSE, plots = TRUE, max_plots = NULL,
               reference_set = NULL, baseline = character())
  split <- match("--", args)
  if (is.na(split)) input_error("usage: main.R --out=DIR [options] -- ARCHIVE...")
  opts$archives <- args[-seq_len(split)]
  for (a in args[seq_len(split - 1L)]) {
    key <- sub("=.*$", "", a)
    value <- sub("^[^=]*=", "", a)
    switch(key,
           "--out" = opts$out <- value,
           "--assess" = opts$assess <- value,
           "--p-thres" = opts$p_thres <- as.numeric(value),
           "--v-thres" = opts$v_thres <- as.numeric(value),
           "--max-plots" = opts$max_plots <- as.integer(value),
           "--reference-set" = opts$reference_set <- value,
           "--baseline" = opts$baseline <- c(opts$baseline, value),
           "--fail-on-violation" = opts$fail <- TRUE,
           "--no-plots" = opts$plots <- FALSE,
           input_error("unknown option ", a))
  }
  if (is.null(opts$out) || !length(opts$archives)) input_error("usage: main.R --out=DIR [options] -- ARCHIVE...")
  limits <- read_registry(Sys.getenv("NBH_ROOT", "."))$limits
  check_limit(limits, "p_thres", opts$p_thres, "--p-thres")
  check_limit(limits, "v_thres", opts$v_thres, "--v-thres")
  if (!is.null(opts$max_plots)) check_limit(limits, "max_plots", opts$max_plots, "--max-plots")
  cores <- Sys.getenv("NBH_ANALYZE_CORES", "")
  if (nzchar(cores)) {
    if (!grepl("^[0-9]+$", cores)) input_error("NBH_ANALYZE_CORES: '", cores, "' is not a number of processes")
    check_limit(limits, "analyze_cores", as.numeric(cores), "NBH_ANALYZE_CORES")
  }
  opts
}

main <- function(args) {
  opts <- parse_main_args(args)
  # Parallel where it pays: the runs are read and reduced by one forked
  # worker per core (reduce_runs). In this process data.table's tables are
  # small (one row per cell and run), and its OpenMP threads were measured
  # to slow it down 2x on a busy machine.
  setDTthreads(1L)
  warnings <- character()
  collect <- function(w) {
    warnings <<- c(warnings, conditionMessage(w))
    message("nbhbench: warning: ", conditionMessage(w))
    invokeRestart("muffleWarning")
  }
  written <- withCallingHandlers({
    result <- analyze_archives(opts$archives, opts$assess, opts$p_thres, opts$v_thres,
                               reference_set = opts$reference_set)
    if (!nrow(result$tests)) {
      input_error("nothing to assess: no guideline of ", result$assessment_file,
                  " has measurements on both sides (see the warnings above)")
    }
    if (length(opts$baseline)) result$regression <- regress_archives(result, opts$baseline)
    settings <- list(out = opts$out, plots = opts$plots, max_plots = opts$max_plots,
                     created = format(Sys.time(), "%Y-%m-%d %H:%M:%S %Z"),
                     version = Sys.getenv("NBH_VERSION", "unknown"))
    write_outputs(result, settings, warnings)
  }, warning = collect)
  s <- written$summary[, .(vt = sum(n_vio_tests), t = sum(n_tests), vg = sum(n_vio_groups), g = sum(n_groups)),
                       by = .(guideline_no, tag, guideline)]
  cat(sprintf("%-5s %s: %d/%d tests violated (%d/%d groups)\n", fcoalesce(s$tag, ""), s$guideline,
              s$vt, s$t, s$vg, s$g), sep = "")
  if (!is.null(result$regression)) cat(regression_summary_line(result$regression), "\n", sep = "")
  cat(sprintf("%d of %d tests violated; report:\n%s\n", sum(s$vt), sum(s$t),
              normalizePath(file.path(opts$out, "report.html"))))
  # With a baseline, CI asks "did anything get slower?": the regressions
  # decide; the guideline violations are in the report either way.
  failed <- if (is.null(result$regression)) sum(s$vt) > 0L else has_regression(result$regression)
  if (opts$fail && failed) 3L else 0L
}

run_main <- function(args) {
  status <- tryCatch(main(args),
    nbh_input_error = function(e) {
      message("nbhbench: ", conditionMessage(e))
      2L
    },
    nbh_output_error = function(e) {
      message("nbhbench: ", conditionMessage(e))
      4L
    },
    error = function(e) {
      message("nbhbench: analyze failed: ", gsub("\n", " ", conditionMessage(e)))
      1L
    })
  quit(save = "no", status = status)
}

if (sys.nframe() == 0L) {
  # The work is in vectorised primitives; byte-compiling the analyzer's
  # functions on first use costs about a second and gains nothing.
  compiler::enableJIT(0L)
  loaded <- tryCatch(source(file.path(Sys.getenv("NBH_ROOT", "."), "analyze", "load.R")), error = function(e) {
    message("nbhbench: cannot load the analyzer: ", gsub("\n", " ", conditionMessage(e)))
    quit(save = "no", status = 1L)
  })
  run_main(commandArgs(TRUE))
}
