# The exact rank tests' cost (bench/bench-rank-tests): per test and for
# 17 280 tests (the study's nbhcoll analysis), CPU seconds of this process
# (user + system; wall time on a shared machine varies more). Each case is
# measured on up to 17 280 tests, fewer where that would take more than
# about 3 s (then the 17 280 figure is extrapolated and says so).
#   Rscript bench/rank_tests/costs.R
suppressPackageStartupMessages(source(file.path(Sys.getenv("NBH_ROOT", "."), "analyze", "load.R")))
setDTthreads(1L)
if (is.null(native_library())) cat("no C library: the figures are those of the R references\n")
TESTS <- 17280L
BUDGET <- 3

cpu <- function(expr) {
  start <- proc.time()
  force(expr)
  used <- proc.time() - start
  used[["user.self"]] + used[["sys.self"]]
}

# Differences (or values) of one kind, per test: log ratios of spread 0.05
# around a small effect, untied; 5 % zeros; one tie (two equal values);
# rounded to 0.01 (many ties and zeros, as from a coarse timer). With
# zeros, each number of zeros has its own table (more tests share each).
draw <- function(kind, tests, n) {
  v <- matrix(rnorm(tests * n, 0.005, 0.05), n)
  if (kind == "5% zeros") v[sample(length(v), length(v) %/% 20)] <- 0
  if (kind == "one tie") v[2, ] <- v[1, ]
  if (kind == "rounded 0.01") v <- round(v, 2)
  as.vector(v)
}

# Seconds per test of run(tests) on data made by make(tests), measured on
# as many tests as the budget allows.
measure <- function(make, run) {
  trial <- 20L
  per_test <- cpu(run(make(trial), trial)) / trial
  tests <- as.integer(min(TESTS, max(trial, BUDGET / max(per_test, 1e-7))))
  d <- make(tests)
  list(per_test = cpu(run(d, tests)) / tests, tests = tests)
}

report <- function(what, m) {
  total <- m$per_test * TESTS
  cat(sprintf("  %-44s %9.1f us per test, %7.2f s for %d tests%s\n", what, m$per_test * 1e6, total, TESTS,
              if (m$tests < TESTS) sprintf(" (from %d)", m$tests) else ""))
}

set.seed(1)
cat("paired: signed_rank_test (exact conditional p, Hodges-Lehmann estimate and 95 % interval)\n")
for (n in c(10L, 50L, 100L, 300L, 500L)) {
  for (kind in c("untied", "5% zeros", "one tie", "rounded 0.01")) {
    m <- measure(function(tests) list(test = rep(seq_len(tests), each = n), value = draw(kind, tests, n)),
                 function(d, tests) signed_rank_test(d, tests))
    report(sprintf("%d pairs, %s", n, kind), m)
  }
}
cat("unpaired: rank_sum_test, both directions\n")
for (runs in c(10L, 30L, 50L)) {
  for (kind in c("untied", "one tie", "rounded 0.01")) {
    for (ties in c("study", "exact")) {
      m <- measure(function(tests) list(test = rep(seq_len(tests), each = 2L * runs),
                                        value = draw(kind, tests, 2L * runs),
                                        is_x = rep(rep(c(TRUE, FALSE), each = runs), tests)),
                   function(d, tests) rank_sum_test(d, tests, ties = ties))
      report(sprintf("%d runs a side, %s, ties = \"%s\"", runs, kind, ties), m)
    }
  }
}
cat("without the C library (the R references), 200 tests each\n")
for (case in list(list("50 pairs, untied", 50L, "untied"), list("50 pairs, rounded 0.01", 50L, "rounded 0.01"))) {
  d <- list(test = rep(1:200, each = case[[2]]), value = draw(case[[3]], 200L, case[[2]]))
  report(paste0(case[[1]], " (signed_rank_test_sorted)"),
         list(per_test = cpu(signed_rank_test_sorted(d, 200L)) / 200, tests = 200L))
}
d <- list(test = rep(1:200, each = 100L), value = draw("rounded 0.01", 200L, 100L),
          is_x = rep(rep(c(TRUE, FALSE), each = 50L), 200L))
report("50 runs a side, rounded 0.01 (rank_sum_test_sorted)",
       list(per_test = cpu(rank_sum_test_sorted(d, 200L, ties = "exact")) / 200, tests = 200L))
