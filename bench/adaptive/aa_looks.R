# Simulated A/A campaigns with every look (bench/bench-adaptive): tests
# without a difference, looked at after every planned round, each look's
# exact rank test compared with that look's nominal p from the error
# spending of decisions.R (spending_bounds at the looks' information
# fractions, runs / nrun_max). A test counts as falsely violated if any of
# its looks reaches its threshold (the ratio threshold, which only lowers
# the count, is left out): the family-wise false-violation rate per test
# over all looks, to be at most p_thres. The tests are the project's exact
# rank tests without ties, their null distributions exact (psignrank,
# pwilcox), so the p-values have the tests' discreteness:
#   two-level       the default (launch_test.R): each run's mean of its
#                   rounds, a t test over the runs, with a launch effect as
#                   large as the rounds' noise (sd 1 each)
#   paired rounds   signed-rank over runs x blocks units (method rounds)
#   paired runs     signed-rank over the runs (blocks = 1: p >= 2^-runs)
#   unpaired        rank-sum of the two sides' run medians (method
#                   unpaired/study; 10 runs a side: p >= 1 / C(20, 10))
# and, for "holds", the two-level test and the pooled one at a true ratio equal to the hold
# ratio (its upper confidence bound below the hold ratio: the signed-rank
# test of the shifted units rejecting at the look's one-sided level), to be
# at most (1 - ci_level) / 2.
#   Rscript bench/adaptive/aa_looks.R [TESTS]     (default 200000 per design)
# Prints "key value" lines; never fails on a figure.
suppressPackageStartupMessages(source(file.path(Sys.getenv("NBH_ROOT", "."), "analyze", "load.R")))
args <- commandArgs(TRUE)
tests <- if (length(args)) as.integer(args[1]) else 200000L
registry <- read_registry(Sys.getenv("NBH_ROOT", "."))
p_thres <- analysis_default(registry, "p_thres")
hold_error <- (1 - analysis_default(registry, "ci_level")) / 2
rule <- analysis_default(registry, "look_rule")
hold_rule <- analysis_default(registry, "hold_rule")
set.seed(20261127)
chunk <- 20000L

# Ranks within each row of X (no ties), by one sort of all rows at once.
row_ranks <- function(x) {
  n <- ncol(x)
  key <- rep(seq_len(nrow(x)), n) * 2 + (as.vector(x) - min(x)) / (max(x) - min(x))   # rows apart
  out <- integer(length(key))
  out[order(key)] <- rep(seq_len(n), nrow(x))
  matrix(out, nrow(x))
}

# One-sided p of the signed-rank test that the units (rows of D) lie above 0.
signed_rank_p <- function(d) {
  v <- rowSums(row_ranks(abs(d)) * (d > 0))
  psignrank(v - 1, ncol(d), lower.tail = FALSE)
}

# One-sided p of the two-level test: D's columns are RUNS runs of BLOCKS
# rounds each (run by run); each run's mean, a t test over them.
two_level_p <- function(d, runs, blocks) {
  e <- matrix(0, nrow(d), runs)
  for (r in seq_len(runs)) e[, r] <- rowMeans(d[, (r - 1L) * blocks + seq_len(blocks), drop = FALSE])
  mean <- rowMeans(e)
  sd <- sqrt(rowSums((e - mean)^2) / (runs - 1L))
  pt(mean / (sd / sqrt(runs)), runs - 1L, lower.tail = FALSE)
}

# Units of M tests: RUNS runs of BLOCKS rounds, a launch effect (sd LAUNCH)
# shared by each run's rounds, the rounds' noise sd 1.
launched <- function(m, runs, blocks, launch) {
  matrix(rnorm(m * runs * blocks), m) + matrix(rep(rnorm(m * runs, 0, launch), each = blocks), m, byrow = TRUE)
}

# One-sided p of the rank-sum test that the rows of A lie right of those of B.
rank_sum_p <- function(a, b) {
  n <- ncol(a)
  w <- rowSums(row_ranks(cbind(a, b))[, seq_len(n), drop = FALSE]) - n * (n + 1) / 2
  pwilcox(w - 1, n, ncol(b), lower.tail = FALSE)
}

# The share of TESTS simulated tests whose p reaches NOMINAL at any look;
# P_OF(k, m) gives the p of m tests at look k.
crossing_rate <- function(nominal, p_of) {
  crossed <- 0
  done <- 0L
  while (done < tests) {
    m <- min(chunk, tests - done)
    hit <- logical(m)
    for (k in seq_along(nominal)) hit <- hit | p_of(k, m) <= nominal[k] * (1 + EDGE_TOLERANCE)
    crossed <- crossed + sum(hit)
    done <- done + m
  }
  crossed / tests
}

# Units shared by the looks of a chunk: a look sees the first n_k of them.
nested <- function(draw) {
  cache <- NULL
  function(k, m, n) {
    if (k == 1L || is.null(cache) || nrow(cache) != m) cache <<- draw(m)
    cache[, seq_len(n), drop = FALSE]
  }
}

report <- function(name, design, nominal, rate, alpha) {
  ci <- binom.test(round(rate * tests), tests, conf.level = 0.95)$conf.int
  cat(name, sprintf("%s: %d simulated tests, nominal p per look %s: false rate %.5f (%d tests; 95 %% interval %.5f-%.5f) against the level %g",
                    design, tests, paste(signif(nominal, 3), collapse = " "), rate, round(rate * tests), ci[1], ci[2],
                    alpha), "\n")
}

runs <- c(10L, 15L, 20L, 25L, 30L)
t <- runs / max(runs)
blocks <- 4L
start <- proc.time()[["elapsed"]]
cat("machine", sprintf("%d cores, load average %s", parallel::detectCores(),
                       paste(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3], collapse = " ")), "\n")
for (r in unique(c(rule, SPENDING_RULES))) {
  nominal <- spending_bounds(t, p_thres, r)$p
  units <- nested(function(m) launched(m, max(runs), blocks, 1))
  rate <- crossing_rate(nominal, function(k, m) two_level_p(units(k, m, runs[k] * blocks), runs[k], blocks))
  report(paste0("two_level_", r), sprintf("two-level, %d runs x %d rounds, launch sd = round sd, at looks after %s runs",
                                          max(runs), blocks, paste(runs, collapse = ", ")), nominal, rate, p_thres)
  units <- nested(function(m) matrix(rnorm(m * max(runs) * blocks), m))
  rate <- crossing_rate(nominal, function(k, m) signed_rank_p(units(k, m, runs[k] * blocks)))
  report(paste0("paired_rounds_", r), sprintf("paired, %d runs x %d rounds at looks after %s runs", max(runs), blocks,
                                             paste(runs, collapse = ", ")), nominal, rate, p_thres)
}
nominal <- spending_bounds(t, p_thres, rule)$p
units <- nested(function(m) matrix(rnorm(m * max(runs)), m))
rate <- crossing_rate(nominal, function(k, m) signed_rank_p(units(k, m, runs[k])))
report("paired_runs", sprintf("paired runs (blocks 1: p >= 2^-10 at the first look), looks after %s runs",
                              paste(runs, collapse = ", ")), nominal, rate, p_thres)
sides <- nested(function(m) matrix(rnorm(m * 2L * max(runs)), m))
rate <- crossing_rate(nominal, function(k, m) {
  x <- sides(k, m, 2L * max(runs))
  rank_sum_p(x[, seq_len(runs[k]), drop = FALSE], x[, max(runs) + seq_len(runs[k]), drop = FALSE])
})
report("unpaired", sprintf("unpaired run medians, looks after %s runs a side", paste(runs, collapse = ", ")),
       nominal, rate, p_thres)
hold_nominal <- spending_bounds(t, hold_error, hold_rule)$p
units <- nested(function(m) launched(m, max(runs), blocks, 1))
rate <- crossing_rate(hold_nominal, function(k, m) two_level_p(units(k, m, runs[k] * blocks), runs[k], blocks))
report("false_holds_two_level", sprintf("two-level at a true ratio equal to the hold ratio, launch sd = round sd, %s spending of %g",
                                        hold_rule, hold_error), hold_nominal, rate, hold_error)
units <- nested(function(m) matrix(rnorm(m * max(runs) * blocks), m))
rate <- crossing_rate(hold_nominal, function(k, m) signed_rank_p(units(k, m, runs[k] * blocks)))
report("false_holds", sprintf("paired at a true ratio equal to the hold ratio, %s spending of %g", hold_rule, hold_error),
       hold_nominal, rate, hold_error)
bonferroni <- rep(p_thres / length(runs), length(runs))
cat("compare", sprintf("Bonferroni's nominal p per look would be %g; %s spending's last look %.3g, its first %.3g",
                       bonferroni[1], rule, nominal[length(nominal)], nominal[1]), "\n")
cat("seconds", sprintf("%.0f", proc.time()[["elapsed"]] - start), "\n")
