# replay.txt (bench/adaptive/replay.R's "key value" lines) as one row per
# replayed archive and design, the table docs/examples/adaptive/README.md
# quotes and claims.csv checks (run from the project's root):
#   Rscript docs/examples/adaptive/replay_table.R REPLAY.txt OUT.csv
# Each row names the archive by its folder, the first round and step, the
# hold ratio, the looks' rule for violated, the nominal p of its looks and
# the test's method (before replay.R printed it, the analyzer's only one:
# unpaired), then the counts replay.R printed and the tests open after the
# first look.
suppressPackageStartupMessages(library(data.table))
args <- commandArgs(TRUE)
lines <- trimws(grep("^#", readLines(args[1]), value = TRUE, invert = TRUE))
lines <- lines[nzchar(lines)]
key <- sub(" .*", "", lines)
value <- sub("^[^ ]+ ?", "", lines)
# The integers of TEXT in order, its "(50.0 %)" left out (thousands are
# written without separators).
ints <- function(text) {
  text <- gsub("\\([0-9.]+ %\\)", "", text)
  as.integer(regmatches(text, gregexpr("[0-9]+", text))[[1]])
}
blocks <- split(seq_along(lines), cumsum(key == "archive"))
rows <- rbindlist(lapply(blocks, function(i) {
  v <- setNames(value[i], key[i])
  design <- ints(sub(":.*", "", v[["design"]]))
  runs <- ints(v[["runs"]])
  experiment_runs <- ints(v[["experiment_runs"]])
  decided <- ints(v[["decided"]])
  agree <- ints(v[["agree"]])
  violations <- ints(v[["violations"]])
  # The looks' nominal p: "nominal p 1.2e-08 to 0.000898", or Bonferroni's "at p <= 0.0002 each".
  p_looks <- if (grepl("nominal p", v[["design"]])) {
    as.numeric(strsplit(sub(".*nominal p ([0-9.e+-]+) to ([0-9.e+-]+)\\).*", "\\1 \\2", v[["design"]]), " ")[[1]])
  } else {
    rep(as.numeric(sub(".*at p <= ([0-9.e+-]+) each.*", "\\1", v[["design"]])), 2)
  }
  data.table(archive = basename(v[["archive"]]), first_round = design[1], step = design[2], up_to = design[3],
             hold_ratio = as.numeric(sub(".*hold ratio ([0-9.]*[0-9]).*", "\\1", v[["design"]])),
             rule = if (grepl("bonferroni", v[["design"]])) "bonferroni"
                    else sub(".*violated: ([a-z-]+) spending.*", "\\1", v[["design"]]),
             method = if (grepl("; method ", v[["design"]])) sub(".*; method ", "", v[["design"]]) else "unpaired",
             p_look_min = p_looks[1], p_look_max = p_looks[2],
             runs = runs[1], fixed_runs = runs[2], runs_pct = round(100 * runs[1] / runs[2], 1),
             experiment_runs = experiment_runs[1], fixed_experiment_runs = experiment_runs[2],
             experiment_runs_pct = round(100 * experiment_runs[1] / experiment_runs[2], 1),
             tests = decided[2], decided = decided[1], decided_pct = round(100 * decided[1] / decided[2], 1),
             violated = decided[3], holds = decided[4], open = decided[5],
             agree = agree[1], agree_pct = round(100 * agree[1] / max(agree[2], 1L), 1),
             violated_fixed = violations[2], violated_found = violations[1], violated_missed = violations[3],
             violated_not_fixed = violations[4],
             open_first_look = if ("looks" %in% names(v)) as.integer(sub("^1: [^;]*, ([0-9]+) open.*", "\\1", v[["looks"]]))
                               else NA_integer_,
             flipped = if ("flipped" %in% names(v)) ints(v[["flipped"]])[1] else NA_integer_)
}))
fwrite(rows, args[2])
print(rows)
