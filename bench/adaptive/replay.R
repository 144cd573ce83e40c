# The adaptive rule replayed on complete archives (bench/bench-adaptive):
#   Rscript bench/adaptive/replay.R NRUN STEP [--hold-ratio=H] ARCHIVE [ARCHIVE ...]
# Each archive is analysed whole (the fixed design: all its runs, one look
# at the thresholds as given, also for an adaptive campaign's archive),
# then replay_rounds (analyze/assess/decisions.R) replays the rounds of an
# adaptive campaign with a first round of NRUN runs and rounds of STEP up
# to the archive's runs, subsampling its runs (no new measurement), each
# test with the thresholds of its looks (error spending on its runs / the
# archive's runs). Prints "key value" lines: runs and experiment runs spent
# against the fixed design, tests decided, decided verdicts equal to the
# fixed design's, the fixed design's violations the rounds miss, and the
# tests whose verdict flipped between looks.
suppressPackageStartupMessages(source(file.path(Sys.getenv("NBH_ROOT", "."), "analyze", "load.R")))
args <- commandArgs(TRUE)
nrun <- as.integer(args[1])
step <- as.integer(args[2])
args <- args[-(1:2)]
hold <- grep("^--hold-ratio=", args, value = TRUE)
hold_ratio <- if (length(hold)) as.numeric(sub("^--hold-ratio=", "", hold)) else NULL
args <- c("", "", setdiff(args, hold))
registry <- read_registry(Sys.getenv("NBH_ROOT", "."))
default <- function(name) analysis_default(registry, name)
setDTthreads(1L)
for (dir in args[-(1:2)]) {
  start <- proc.time()[["elapsed"]]
  full <- suppressWarnings(analyze_archives(dir, NULL, default("p_thres"), default("v_thres"), ci_level = default("ci_level"),
                                            hold_ratio = hold_ratio, replay = FALSE))
  # The fixed design: one look at the thresholds as given (an adaptive
  # campaign's archive was analysed with those of each test's last look).
  if (full$looks$adaptive) full$tests <- assess_at(full$state, full$medians, full$work)
  analysed <- proc.time()[["elapsed"]]
  r <- replay_rounds(full, nrun, step)
  pct <- function(a, b) sprintf("%.1f %%", 100 * a / b)
  fixed <- full$tests[, .(guideline, a_cell, b_cell, full = decision)]
  t <- r$tests[fixed, on = c("guideline", "a_cell", "b_cell")]
  decided <- t[decision != "open"]
  same <- decided[decision == full, .N]
  v_full <- t[full == "violated", .N]
  found <- t[full == "violated" & decision == "violated", .N]
  cat("archive", dir, "\n")
  cat("design", sprintf(paste("first round %d runs, rounds of %d, up to %d: %d looks; violated: %s spending of p %s",
                              "(nominal p %.3g to %.3g), holds: %s spending of %s (intervals %.4g to %.4g %%); hold",
                              "ratio %s; method %s"),
                        nrun, step, r$nrun_max, r$looks_planned, full$looks$rule, format(full$looks$p_thres),
                        min(r$tests$p_look), max(r$tests$p_look), full$looks$hold_rule, format(full$looks$hold_error),
                        100 * min(r$tests$ci_level_look), 100 * max(r$tests$ci_level_look), format(full$hold_ratio),
                        paste(unique(r$tests$method), collapse = ", ")), "\n")
  cat("runs", sprintf("%d of the fixed design's %d (%s)", r$spent$runs, r$spent$fixed_runs,
                      pct(r$spent$runs, r$spent$fixed_runs)), "\n")
  cat("experiment_runs", sprintf("%d of %d (%s)", r$spent$experiment_runs, r$spent$fixed_experiment_runs,
                                 pct(r$spent$experiment_runs, r$spent$fixed_experiment_runs)), "\n")
  cat("decided", sprintf("%d of %d tests (%s): %d violated, %d hold; %d open", nrow(decided), nrow(t),
                         pct(nrow(decided), nrow(t)), decided[decision == "violated", .N],
                         decided[decision == "holds", .N], t[decision == "open", .N]), "\n")
  cat("agree", sprintf("%d of the %d decided verdicts equal the fixed design's (%s)", same, nrow(decided),
                       pct(same, max(nrow(decided), 1L))), "\n")
  cross <- t[, .N, keyby = .(rounds = decision, fixed = full)]
  cat("cross", paste(sprintf("%s/%s %d", cross$rounds, cross$fixed, cross$N), collapse = ", "), "\n")
  cat("violations", sprintf("%d of the fixed design's %d found (%d missed); %d found that it does not find",
                            found, v_full, v_full - found, t[decision == "violated" & full != "violated", .N]), "\n")
  cat("flipped", sprintf("%d tests between violated and holds from one look to another", sum(r$tests$flipped)), "\n")
  sticky <- replay_rounds(full, nrun, step, sticky = TRUE)
  cat("sticky", sprintf(paste("were a decided test that a later look finds open again given no more runs: %d runs",
                              "(%s), %d experiment runs (%s), %d tests open at the end"),
                        sticky$spent$runs, pct(sticky$spent$runs, sticky$spent$fixed_runs), sticky$spent$experiment_runs,
                        pct(sticky$spent$experiment_runs, sticky$spent$fixed_experiment_runs),
                        sticky$tests[decision == "open", .N]), "\n")
  looks <- r$looks
  cat("looks", paste(sprintf("%d: %d runs, %d experiment runs, %d open", looks$round, looks$runs,
                             looks$experiment_runs, looks$open), collapse = "; "), "\n")
  cat("seconds", sprintf("%.1f analysis of the archive, %.1f the replayed looks", analysed - start,
                         proc.time()[["elapsed"]] - analysed), "\n")
}
