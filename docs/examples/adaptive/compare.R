# The figures of docs/examples/adaptive/README.md, from the analyses and
# archives it names (run from the project's root):
#   Rscript docs/examples/adaptive/compare.R OUT.csv NAME ANALYSIS FIXED_ANALYSIS ARCHIVE... [-- NAME ...]
# One row per NAME: the runs, experiment runs and kernel time of the
# ARCHIVEs (one per library), their wall time from the first run's start to
# the last run's end (looks included), the decisions of ANALYSIS, and how
# many of its decided tests (violated or holds) have the same decision in
# FIXED_ANALYSIS (the same campaign run fixed at nrun_max).
suppressPackageStartupMessages(library(data.table))
args <- commandArgs(TRUE)
out <- args[1]
groups <- split(args[-1], cumsum(args[-1] == "--"))
seconds <- function(t) as.numeric(as.POSIXct(t, format = "%Y-%m-%dT%H:%M:%SZ", tz = "UTC"))
rows <- rbindlist(lapply(groups, function(g) {
  g <- g[g != "--"]
  tests <- fread(file.path(g[2], "tests.csv"), na.strings = "")
  fixed <- fread(file.path(g[3], "tests.csv"), na.strings = "")
  # A test is its guideline and its parameters (every column from relation to b_params).
  keys <- c("guideline_no", names(tests)[seq(match("relation", names(tests)), match("b_params", names(tests)))])
  both <- merge(tests[, c(keys, "decision"), with = FALSE], fixed[, c(keys, "decision"), with = FALSE],
                by = keys, suffixes = c("", "_fixed"))
  decided <- both[decision != "open"]
  archives <- g[-(1:3)]
  runs <- rbindlist(lapply(archives, function(a) fread(file.path(a, "runs.csv"), select = c("run_id", "experiments_total"))))
  attempts <- rbindlist(lapply(archives, function(a) {
    rbindlist(lapply(Sys.glob(file.path(a, "attempts", "*.json")), function(f) {
      r <- jsonlite::fromJSON(f)
      data.table(archive = a, start = seconds(r$started), end = seconds(r$ended))
    }))
  }))
  wall <- attempts[, .(wall = max(end) - min(start)), by = archive]$wall
  data.table(name = g[1], archives = length(archives), runs = nrow(runs), experiment_runs = sum(runs$experiments_total),
             kernel_seconds = round(sum(attempts$end - attempts$start)), wall_seconds = round(sum(wall)),
             tests = nrow(tests), violated = sum(tests$decision == "violated"), holds = sum(tests$decision == "holds"),
             open = sum(tests$decision == "open"), decided = nrow(decided),
             decided_same_as_fixed = sum(decided$decision == decided$decision_fixed),
             violated_fixed = sum(both$decision_fixed == "violated"),
             violated_both = sum(both$decision == "violated" & both$decision_fixed == "violated"))
}))
fwrite(rows, out)
print(rows)
