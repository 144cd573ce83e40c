# Entry point of `nbhbench analyze` (libexec/nbhbench-analyze checks the
# options and calls this with canonical ones):
#   Rscript analyze/main.R --out=DIR [--assess=FILE] [--p-thres=P] [--v-thres=V]
#           [--hold-ratio=H] [--reference-set=NAME] [--adjust=none|holm|bh] [--method=M] [--include-mismatched]
#           [--fail-on-violation] [--no-plots] [--pdf] [--max-plots=N] [--baseline=ARCHIVE ...]
#           [--history=DB] [--history-by=date|release] [--fail-on-change] -- ARCHIVE...
# Defaults: registry/analysis.csv.
# Exit status: 0 analysed; 2 bad input (one line on stderr); 3 something is
# violated, or a guideline cannot detect a violation, and
# --fail-on-violation (with --baseline: a cell is slower than in the
# baseline, or a compared cell cannot detect it); 4 the output cannot be
# written (a full disk); 5 a cell departs from its recent history
# (--history) with this analysis, and --fail-on-change; 6 --out holds
# something else than an earlier analysis (nothing is replaced); 1 a bug.
# A history that refuses the analysis (--history) is exit 2 after the
# analysis and report are written.

parse_main_args <- function(args, registry = read_registry(Sys.getenv("NBH_ROOT", "."))) {
  default <- function(name) analysis_default(registry, name)
  opts <- list(assess = NULL, p_thres = default("p_thres"), v_thres = default("v_thres"), fail = FALSE,
               plots = TRUE, pdf = FALSE, max_plots = NULL, reference_set = NULL, adjust = default("adjust"),
               include_mismatched = FALSE, ci_level = default("ci_level"), baseline = character(),
               history = NULL, history_by = "date", fail_on_change = FALSE)
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
           "--hold-ratio" = opts$hold_ratio <- as.numeric(value),
           "--max-plots" = opts$max_plots <- as.integer(value),
           "--reference-set" = opts$reference_set <- value,
           "--adjust" = opts$adjust <- value,
           "--method" = opts$method <- value,
           "--include-mismatched" = opts$include_mismatched <- TRUE,
           "--baseline" = opts$baseline <- c(opts$baseline, value),
           "--fail-on-violation" = opts$fail <- TRUE,
           "--history" = opts$history <- value,
           "--history-by" = opts$history_by <- value,
           "--fail-on-change" = opts$fail_on_change <- TRUE,
           "--no-plots" = opts$plots <- FALSE,
           "--pdf" = opts$pdf <- TRUE,
           input_error("unknown option ", a))
  }
  if (is.null(opts$out) || !length(opts$archives)) input_error("usage: main.R --out=DIR [options] -- ARCHIVE...")
  if (!is.null(opts$method) && !opts$method %in% METHODS) {
    input_error("--method: unknown method '", opts$method, "' (", paste(METHODS, collapse = ", "), ")")
  }
  limits <- read_registry(Sys.getenv("NBH_ROOT", "."))$limits
  check_limit(limits, "p_thres", opts$p_thres, "--p-thres")
  check_limit(limits, "v_thres", opts$v_thres, "--v-thres")
  if (!is.null(opts$hold_ratio)) check_limit(limits, "hold_ratio", opts$hold_ratio, "--hold-ratio")
  if (!is.null(opts$max_plots)) check_limit(limits, "max_plots", opts$max_plots, "--max-plots")
  cores <- Sys.getenv("NBH_ANALYZE_CORES", "")
  if (nzchar(cores)) {
    if (!grepl("^[0-9]+$", cores)) input_error("NBH_ANALYZE_CORES: '", cores, "' is not a number of processes")
    check_limit(limits, "analyze_cores", as.numeric(cores), "NBH_ANALYZE_CORES")
  }
  opts
}

main <- function(args) {
  progress_begin()
  opts <- parse_main_args(args)
  replaces <- check_output_dir(opts$out)  # before the long part: a folder of something else fails at once
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
                               reference_set = opts$reference_set, adjust = opts$adjust,
                               include_mismatched = opts$include_mismatched, ci_level = opts$ci_level,
                               hold_ratio = opts$hold_ratio, method = opts$method)
    if (!nrow(result$tests)) {
      input_error("nothing to assess: no guideline of ", result$assessment_file,
                  " has measurements on both sides (see the warnings above)")
    }
    if (length(opts$baseline)) result$regression <- regress_archives(result, opts$baseline)
    settings <- list(out = opts$out, plots = opts$plots, pdf = opts$pdf, max_plots = opts$max_plots,
                     created = format(Sys.time(), "%Y-%m-%d %H:%M:%S %Z"),
                     version = Sys.getenv("NBH_VERSION", "unknown"), history = opts$history,
                     history_by = opts$history_by)
    write_outputs(result, settings, warnings)
  }, warning = collect)
  if (replaces) cat(opts$out, ": the earlier analysis there was replaced by this one\n", sep = "")
  s <- written$summary[, .(vt = sum(n_vio_tests), t = sum(n_tests), vg = sum(n_vio_groups), g = sum(n_groups),
                           blind = sum(power == "cannot detect")),
                        by = .(library = fcoalesce(library, "libraries compared"), guideline_no, tag, guideline)]
  # Each library's guidelines together (in the order of the archives), then those that compare libraries.
  in_archives <- unique(result$frame$runs[order(archive)]$library)
  s[, library := factor(library, levels = unique(c(intersect(in_archives, library), setdiff(library, in_archives),
                                                   "libraries compared")))]
  setorder(s, library, guideline_no)
  for (l in levels(droplevels(s$library))) {
    g <- s[library == l]
    cat(l, ":\n", sprintf("  %-5s %s: %d/%d tests violated (%d/%d groups)%s\n", fcoalesce(g$tag, ""), g$guideline,
                          g$vt, g$t, g$vg, g$g, ifelse(g$blind > 0L, " - CANNOT DETECT: too few runs for the p threshold",
                                                       "")), sep = "")
  }
  if (!is.null(result$regression)) cat(regression_summary_line(result$regression), "\n", sep = "")
  cat(sprintf("%d of %d tests violated, %d hold, %d open; report:\n%s\n", sum(s$vt), sum(s$t),
              sum(written$tests$decision == "holds"), sum(written$tests$decision == "open"),
              normalizePath(file.path(opts$out, "report.html"))))
  if (!is.null(written$history_refused)) {
    message("nbhbench: ", written$history_refused, " (the analysis and its report are written)")
    return(2L)
  }
  changes <- written$history_changes
  for (line in changes) message("nbhbench: change: ", line)
  if (opts$fail_on_change && length(changes)) {
    message("nbhbench: ", length(changes), " cell(s) depart from their recent history with this analysis; ",
            "failing (--fail-on-change)")
    return(5L)
  }
  # With a baseline, CI asks "did anything get slower?": the regressions
  # decide (and a comparison that cannot detect one fails too); the
  # guideline violations are in the report either way.
  if (!is.null(result$regression)) return(if (opts$fail && regression_fails(result$regression)) 3L else 0L)
  if (opts$fail && sum(s$blind) > 0L) {
    message("nbhbench: ", sum(s$blind > 0L), " guideline(s) cannot detect a violation with these runs ",
            "(summary.csv: power); failing (--fail-on-violation)")
  }
  if (opts$fail && (sum(s$vt) > 0L || sum(s$blind) > 0L)) 3L else 0L
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
    nbh_foreign_out_error = function(e) {
      message("nbhbench: ", conditionMessage(e))
      6L
    },
    error = function(e) {
      message("nbhbench: analyze failed: ", gsub("\n", " ", conditionMessage(e)))
      1L
    })
  # Out at once where the analyzer's library is loaded (exit_now.c): the
  # temporary directory removed here, the rest left to the kernel.
  if (native_loaded()) {
    unlink(tempdir(), recursive = TRUE)
    call_native("nbh_exit_now", status)
  }
  quit(save = "no", status = status)
}

if (sys.nframe() == 0L) {
  # First the results files are read ahead (analyze/input/read_ahead.R), by
  # a fork that has the second core while this process attaches R's default
  # packages (libexec/nbhbench-analyze starts R without them, some 0.1 s),
  # data.table and the analyzer. Where that fails the workers read them all.
  local({
    root <- Sys.getenv("NBH_ROOT", ".")
    args <- commandArgs(TRUE)
    archives <- if ("--" %in% args) args[-seq_len(match("--", args))] else character()
    tryCatch({
      for (f in c("native_routines.R", file.path("input", "read_ahead.R"))) {
        sys.source(file.path(root, "analyze", f), envir = globalenv())
      }
      read_ahead(archives, root)
    }, error = function(e) 0L)
  })
  for (package in c("methods", "datasets", "utils", "grDevices", "graphics", "stats")) {   # R's search order
    suppressPackageStartupMessages(library(package, character.only = TRUE))
  }
  rm(package)
  Sys.unsetenv("R_DEFAULT_PACKAGES")   # R's own default for any R this analysis starts
  # The work is in vectorised primitives; byte-compiling the analyzer's
  # functions on first use costs about a second and gains nothing.
  compiler::enableJIT(0L)
  loaded <- tryCatch(source(file.path(Sys.getenv("NBH_ROOT", "."), "analyze", "load.R")), error = function(e) {
    message("nbhbench: cannot load the analyzer: ", gsub("\n", " ", conditionMessage(e)))
    quit(save = "no", status = 1L)
  })
  run_main(commandArgs(TRUE))
}
