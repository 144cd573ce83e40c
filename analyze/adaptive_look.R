# One look of an adaptive campaign (SPEC 7.5; workflow/adaptive.py calls it
# between rounds): the analysis of what has finished, on a view of the
# workspace laid out as an archive (experiments.csv, runs.csv of the done
# runs, results/, campaign/assessment.conf, adaptive.json), with the
# analyzer's own pipeline, each test with the thresholds of its look
# (decisions.R: error spending on the runs it has).
#   Rscript analyze/adaptive_look.R --out=DIR [--hold-ratio=H] [--dry] -- VIEW
# writes into DIR (which exists):
#   tests.csv    every test with its decision (violated, holds, open)
#   needed.csv   deployment, param_set, id: the experiments open tests need
#   look.json    the counts: tests, violated, holds, open, per guideline too;
#                p_look and ci_level_look: the loosest thresholds any
#                of its tests had
# --dry: VIEW has no results yet; checks that the campaign's assessment
# names at least one test of it (else one line, exit 2) and writes
# look.json with the tests it names per guideline.
# Every file is checked once written (analyze/output/output_files.R): a
# full disk that cuts needed.csv would silently shrink the next round.
# Exit status as analyze/main.R: 0, 2 bad input (one line on stderr), 4 a
# file that cannot be written whole (one line naming it), 1 a bug.

look_main <- function(args) {
  split <- match("--", args)
  if (is.na(split) || split == length(args)) input_error("usage: adaptive_look.R --out=DIR [--hold-ratio=H] [--dry] -- VIEW")
  view <- args[split + 1L]
  opts <- list(dry = FALSE, hold_ratio = NULL)
  for (a in args[seq_len(split - 1L)]) {
    value <- sub("^[^=]*=", "", a)
    switch(sub("=.*$", "", a),
           "--out" = opts$out <- value,
           "--hold-ratio" = opts$hold_ratio <- as.numeric(value),
           "--dry" = opts$dry <- TRUE,
           input_error("unknown option ", a))
  }
  registry <- read_registry(Sys.getenv("NBH_ROOT", "."))
  default <- function(name) analysis_default(registry, name)
  setDTthreads(1L)
  warnings <- character()
  withCallingHandlers({
    look <- if (opts$dry) planned_tests(view, registry) else {
      result <- analyze_archives(view, NULL, default("p_thres"), default("v_thres"), adjust = default("adjust"),
                                 ci_level = default("ci_level"), hold_ratio = opts$hold_ratio, replay = FALSE)
      write_look(result, opts$out)
    }
  }, warning = function(w) {
    warnings <<- c(warnings, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  look$warnings <- warnings
  write_text_file(jsonlite::toJSON(look, auto_unbox = TRUE, pretty = TRUE, digits = NA), file.path(opts$out, "look.json"))
  0L
}

# tests.csv and needed.csv of a look; returns its counts.
write_look <- function(result, out) {
  tt <- test_table(result)
  cols <- c("guideline_no", "tag", "guideline", "relation", RUN_PARAMETERS, "a_params", "b_params", "runs_a", "runs_b",
            "ratio", "ratio_ci_low", "ratio_ci_high", "p_value", "violated", "decision", "p_look", "ci_level_look")
  write_table_file(tt[, c(cols, setdiff(result$params$name, RUN_PARAMETERS)), with = FALSE], file.path(out, "tests.csv"))
  write_table_file(needed_experiments(result), file.path(out, "needed.csv"))
  per <- tt[, .(tests = .N, violated = sum(decision == "violated"), holds = sum(decision == "holds"),
                open = sum(decision == "open")), keyby = .(guideline_no, tag, guideline)]
  list(tests = nrow(tt), violated = sum(tt$decision == "violated"), holds = sum(tt$decision == "holds"),
       open = sum(tt$decision == "open"), p_look = max(tt$p_look, 0), ci_level_look = min(tt$ci_level_look, 1),
       hold_ratio = result$hold_ratio, looks_planned = result$looks$looks,
       guidelines = lapply(seq_len(nrow(per)), function(i) as.list(per[i, .(tag = fcoalesce(tag, ""), guideline,
                                                                             tests, violated, holds, open)])))
}

# Before the first round: the tests the campaign's assessment names (pairs
# of cells with a partner), per guideline; none at all is an error.
planned_tests <- function(dir, registry) {
  params <- analysis_parameters(registry)
  archive <- read_archive(dir, registry)
  assess <- default_assessment(list(archive))
  frame <- combine_archives(list(archive), params)
  guidelines <- guideline_thresholds(parse_assessment(assess, registry$guidelines$id), registry$guidelines)
  guidelines <- check_assessment(guidelines, frame$cells, params)
  said <- character()
  pairs <- withCallingHandlers(lapply(guidelines, function(g) {
    nrow(match_sides(frame$cells, g$a, g$b, params$name, sprintf("%s: guideline '%s'", g$where, g$text)))
  }), warning = function(w) {
    said <<- c(said, conditionMessage(w))
    invokeRestart("muffleWarning")
  })
  if (!sum(unlist(pairs))) {
    input_error("the assessment names no test of this campaign: none of its ", length(guidelines),
                " guidelines has cells on both sides among the campaign's experiments",
                if (length(said)) paste0(" (", said[1], ")") else "")
  }
  for (w in said) warning(w, call. = FALSE)
  list(tests = sum(unlist(pairs)), guidelines = lapply(seq_along(guidelines), function(k) {
    list(tag = fcoalesce(guidelines[[k]]$tag, ""), guideline = guidelines[[k]]$text, tests = pairs[[k]])
  }))
}

if (sys.nframe() == 0L) {
  compiler::enableJIT(0L)
  tryCatch(source(file.path(Sys.getenv("NBH_ROOT", "."), "analyze", "load.R")), error = function(e) {
    message("nbhbench: cannot load the analyzer: ", gsub("\n", " ", conditionMessage(e)))
    quit(save = "no", status = 1L)
  })
  status <- tryCatch(look_main(commandArgs(TRUE)),
    nbh_input_error = function(e) {
      message("nbhbench: ", conditionMessage(e))
      2L
    },
    nbh_output_error = function(e) {
      message("nbhbench: ", conditionMessage(e))
      4L
    },
    error = function(e) {
      message("nbhbench: the look failed: ", gsub("\n", " ", conditionMessage(e)))
      1L
    })
  quit(save = "no", status = status)
}
