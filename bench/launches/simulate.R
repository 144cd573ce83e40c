# Simulated tests with a known launch component (SPEC 7.6): what each test
# method decides when launches differ and when they do not. A test's two
# sides are measured in R runs of K rounds; the log ratio of round k of
# run r is
#   d(r, k) = log(ratio) + b(r) + e(r, k),  b ~ N(0, sd_launch^2), e ~ rounds
# (e: normal with sd_round, or heavy-tailed: a t with 3 degrees of freedom
# scaled to sd_round), b what one launch fixes (placement, alignment, a
# draw once per run), shared by all its rounds. Side b's round median is
# exp(phase(r, k)), the machine's speed in that round (lognormal, sd_phase:
# both sides share it, the paired tests cancel it, the study's comparison
# of run medians does not), side a's exp(phase + d). Each design is TESTS such
# tests in one call of paired_tests (the analyzer's own code), per method:
#   paired  the two-level test (launch_test.R)
#   rounds  every round an independent pair (the test before 2026-11-29)
#   study   the 2017 study's rank-sum test of the sides' run medians
# Returns one row: the design, and per method the share of intervals that
# hold the true ratio (coverage), of tests at p <= p_thres (reject), of
# violated tests (ratio >= v_thres too), of holds (upper bound below the
# hold ratio), and of contradictions: tests whose twin campaign (the same
# design measured again) is violated where this one holds, or the reverse.

simulate_design <- function(runs, rounds, sd_launch, sd_round = 0.05, ratio = 1, tests = 2000L, sd_phase = 0.1,
                            methods = c("paired", "rounds", "study"), p_thres = 0.001, v_thres = 1.03,
                            hold = 1.05, level = 0.95, tails = "normal") {
  one <- function() {
    units <- runs * rounds
    launch <- rnorm(tests * runs, 0, sd_launch)
    noise <- if (tails == "normal") rnorm(tests * units, 0, sd_round) else
      sd_round * rt(tests * units, 3) / sqrt(3)
    d <- log(ratio) + rep(launch, each = rounds) + noise   # test by test, run by run, round by round
    phase <- rnorm(tests * units, 0, sd_phase)
    test <- rep(seq_len(tests), each = units)
    unit <- rep(seq_len(units), tests)
    run_of_unit <- rep(seq_len(runs), each = rounds)
    out <- list()
    for (m in methods) {
      if (m == "study") {
        # each side's run median of its rounds
        run_m <- data.table(test, run = run_of_unit[unit], a = phase + d, b = phase)[
          , .(a = median(a), b = median(b)), by = .(test, run)]
        x <- list(test = c(run_m$test, run_m$test), value = exp(c(run_m$a, run_m$b)),
                  is_x = rep(c(TRUE, FALSE), each = nrow(run_m)))
        rs <- rank_sum_test(x, tests, both = FALSE, ties = "study")
        ci <- shift_interval(x, tests, level)
        r <- run_m[, .(ratio = exp(median(a) - median(b))), keyby = test]$ratio
        out[[m]] <- data.table(ratio = r, low = ci$ci_low, high = ci$ci_high, p = rs$p_x_right)
      } else {
        values <- data.table(cell = c(2L * test - 1L, 2L * test), run = c(unit, unit),
                             median = exp(c(phase + d, phase)))
        setkeyv(values, c("cell", "run"))
        pt <- paired_tests(data.table(test = seq_len(tests), a_cell = 2L * seq_len(tests) - 1L,
                                      b_cell = 2L * seq_len(tests)), values, run_of_unit, level, m)
        out[[m]] <- data.table(ratio = pt$ratio, low = pt$ratio_ci_low, high = pt$ratio_ci_high, p = pt$p_a)
      }
    }
    out
  }
  first <- one()
  second <- one()
  row <- data.table(runs = runs, rounds = rounds, sd_launch = sd_launch, sd_round = sd_round, ratio = ratio,
                    tails = tails, tests = tests)
  for (m in methods) {
    decide <- function(x) {
      violated <- x$ratio >= v_thres * (1 - 1e-12) & x$p <= p_thres * (1 + 1e-12)
      fifelse(violated, "violated", fifelse(!is.na(x$high) & x$high < hold, "holds", "open"))
    }
    x <- first[[m]]
    a <- decide(x)
    b <- decide(second[[m]])
    set(row, j = paste0(m, "_coverage"), value = mean(!is.na(x$low) & x$low <= ratio & ratio <= x$high))
    set(row, j = paste0(m, "_reject"), value = mean(x$p <= p_thres))
    set(row, j = paste0(m, "_violated"), value = mean(a == "violated"))
    set(row, j = paste0(m, "_holds"), value = mean(a == "holds"))
    set(row, j = paste0(m, "_contradictions"), value = mean((a == "violated" & b == "holds") |
                                                            (a == "holds" & b == "violated")))
  }
  row[]
}
