# The simulation grid of docs/analyze.md ("Launches that differ"): every
# design of bench/launches/simulate.R over launch sd 0, 0.02, 0.05; 3, 5,
# 10 and 30 runs; 1, 5 and 10 rounds; true ratios 1 (coverage, false
# violations, contradictions), 1.06 (false holds at hold 1.05) and 1.10
# (power), round sd 0.05 and a machine phase sd 0.1 between rounds, for
# the two-level test (paired), the pooled test of the rounds (rounds, the
# default before 2026-11-29) and the study's rank-sum of run medians.
# Rscript bench/launches/grid.R OUT.csv [TESTS]
local({
  root <- Sys.getenv("NBH_ROOT", ".")
  source(file.path(root, "analyze", "load.R"))
  source(file.path(root, "bench", "launches", "simulate.R"))
  setDTthreads(1L)
  args <- commandArgs(TRUE)
  tests <- if (length(args) >= 2L) as.integer(args[2]) else 2000L
  set.seed(20261129)
  grid <- CJ(sd_launch = c(0, 0.02, 0.05), runs = c(3L, 5L, 10L, 30L), rounds = c(1L, 5L, 10L),
             ratio = c(1, 1.06, 1.10), sorted = FALSE)
  rows <- rbindlist(lapply(seq_len(nrow(grid)), function(i) {
    g <- grid[i]
    simulate_design(g$runs, g$rounds, g$sd_launch, ratio = g$ratio, tests = tests)
  }))
  fwrite(rows, args[1])
})
