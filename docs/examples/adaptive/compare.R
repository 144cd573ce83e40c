# The figures of docs/examples/adaptive/README.md, from the analyses and
# archives it names (run from the project's root):
#   Rscript docs/examples/adaptive/compare.R OUT.csv NAME ANALYSIS FIXED_ANALYSIS ARCHIVE... [-- NAME ...]
# One row per NAME: the runs, experiment runs and kernel time of the
# ARCHIVEs (one per library), against the fixed design of nrun_max runs of
# every experiment (adaptive.json's nrun_max, else the archive's runs; per
# deployment and parameter set), the rounds run, their wall time from the
# first run's start to the last run's end (looks included), the decisions
# of ANALYSIS (all tests, and the A/A self-check's twin tests among them),
# and how many of its decided tests (violated or holds) have the same
# decision in FIXED_ANALYSIS (the same campaign run fixed at nrun_max).
# Those that do not are listed in disagreements.csv beside OUT.csv (NAME,
# the test, both decisions, ratios and intervals).
suppressPackageStartupMessages(library(data.table))
args <- commandArgs(TRUE)
out <- args[1]
groups <- split(args[-1], cumsum(args[-1] == "--"))
seconds <- function(t) as.numeric(as.POSIXct(t, format = "%Y-%m-%dT%H:%M:%SZ", tz = "UTC"))
disagreements <- list()
rows <- rbindlist(lapply(groups, function(g) {
  g <- g[g != "--"]
  tests <- fread(file.path(g[2], "tests.csv"), na.strings = "")
  fixed <- fread(file.path(g[3], "tests.csv"), na.strings = "")
  # A test is its guideline and its parameters (every column from relation to b_params).
  keys <- c("guideline_no", "tag", names(tests)[seq(match("relation", names(tests)), match("b_params", names(tests)))])
  shown <- c("decision", "ratio", "ratio_ci_low", "ratio_ci_high")
  both <- merge(tests[, c(keys, shown), with = FALSE], fixed[, c(keys, shown), with = FALSE],
                by = keys, suffixes = c("", "_fixed"))
  decided <- both[decision != "open"]
  disagreements[[g[1]]] <<- decided[decision != decision_fixed,
                                    c(keys, shown, paste0(shown, "_fixed")), with = FALSE][, name := g[1]]
  archives <- g[-(1:3)]
  runs <- rbindlist(lapply(archives, function(a) {
    fread(file.path(a, "runs.csv"), select = c("run_id", "deployment", "param_set", "run", "round", "experiments_total"))
  }), fill = TRUE)
  fixed_design <- rbindlist(lapply(archives, function(a) {
    r <- fread(file.path(a, "runs.csv"), select = c("deployment", "param_set", "run"))
    plan <- file.path(a, "adaptive.json")
    nrun_max <- if (file.exists(plan)) jsonlite::fromJSON(plan)$nrun_max else max(r$run)
    contexts <- uniqueN(r, by = c("deployment", "param_set"))
    experiments <- nrow(fread(file.path(a, "experiments.csv"), select = "id"))
    data.table(runs = contexts * nrun_max, experiment_runs = contexts * nrun_max * experiments)
  }))
  attempts <- rbindlist(lapply(archives, function(a) {
    rbindlist(lapply(Sys.glob(file.path(a, "attempts", "*.json")), function(f) {
      r <- jsonlite::fromJSON(f)
      data.table(archive = a, start = seconds(r$started), end = seconds(r$ended))
    }))
  }))
  wall <- attempts[, .(wall = max(end) - min(start)), by = archive]$wall
  aa <- tests[tag == "AA"]
  data.table(name = g[1], archives = length(archives), rounds = max(runs$round, 1L, na.rm = TRUE),
             runs = nrow(runs), fixed_runs = sum(fixed_design$runs),
             experiment_runs = sum(runs$experiments_total), fixed_experiment_runs = sum(fixed_design$experiment_runs),
             experiment_runs_pct = round(100 * sum(runs$experiments_total) / sum(fixed_design$experiment_runs)),
             kernel_seconds = round(sum(attempts$end - attempts$start)), wall_seconds = round(sum(wall)),
             tests = nrow(tests), violated = sum(tests$decision == "violated"), holds = sum(tests$decision == "holds"),
             open = sum(tests$decision == "open"), aa_tests = nrow(aa), aa_violated = sum(aa$decision == "violated"),
             decided = nrow(decided),
             decided_same_as_fixed = sum(decided$decision == decided$decision_fixed),
             violated_fixed = sum(both$decision_fixed == "violated"),
             violated_both = sum(both$decision == "violated" & both$decision_fixed == "violated"))
}))
fwrite(rows, out)
differ <- rbindlist(disagreements, fill = TRUE)
if (nrow(differ)) setcolorder(differ, "name")
fwrite(differ, file.path(dirname(out), "disagreements.csv"))
print(rows)
