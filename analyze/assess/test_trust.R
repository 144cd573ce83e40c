# What every test carries besides its ratio and p-value (SPEC 7.4): the
# p-value adjusted for the number of tests (adjust_p; the verdict uses it),
# and the confidence interval of the ratio (ratio_ci).
#
# tests: the rows of all guidelines (assess_guideline, with a guideline
# column); medians: the run medians (cell, run, median). A paired test
# keeps the interval its test gave (assess_guideline); an unpaired one gets
# the bootstrap interval of its ratio of run medians (ratio_ci.R). A test
# whose ratio is b over a (an `a ~ b` test slower on side b) gets the
# interval of that ratio. The family of the adjustment is every test of the
# analysis; v_thres is each test's own ratio threshold (its guideline's:
# GL16 and AR1 have 1.10), or one for all.
# spread: log_median_spread(medians), if already computed; or, where the
# tests compare different run statistics (statistic, one per test: the
# assessment's `statistic`), a list of such spreads by statistic, each of
# the run statistic's values. Returns tests with p_adjusted, ratio_ci_low,
# ratio_ci_high, and violated decided with p_adjusted.
test_trust <- function(tests, medians, p_thres, v_thres, adjust = "none", level = 0.95, spread = NULL,
                       statistic = NULL) {
  tests <- copy(tests)
  tests[, p_adjusted := adjust_p(p_value, adjust)]
  if (adjust != "none") tests[, violated := violates(ratio, p_adjusted, p_thres, v_thres)]
  for (col in c("ratio_ci_low", "ratio_ci_high")) if (!col %in% names(tests)) set(tests, j = col, value = NA_real_)
  if (!nrow(tests)) return(tests)
  given <- !is.na(tests$ratio_ci_low) & !is.na(tests$ratio_ci_high)
  if (all(given)) return(order_trust_columns(tests))
  if (is.null(spread)) spread <- log_median_spread(medians[cell %in% c(tests$a_cell, tests$b_cell)])
  if (is.data.table(spread)) spread <- list(median = spread)
  statistic <- statistic %||% rep("median", nrow(tests))
  var_a <- var_b <- rep(NA_real_, nrow(tests))
  for (s in unique(statistic[!given])) {
    mine <- which(statistic == s & !given)
    # A paired guideline's test whose sides share no run (two libraries, two
    # archives) fell back to the unpaired test: no spread was asked for its
    # run medians, so it is computed here for its cells.
    by_cells <- spread[[s]] %||% log_median_spread(medians[cell %in% c(tests$a_cell[mine], tests$b_cell[mine])])
    var_a[mine] <- by_cells[J(tests$a_cell[mine]), log_var]
    var_b[mine] <- by_cells[J(tests$b_cell[mine]), log_var]
  }
  ci <- ratio_intervals(tests$ratio, var_a, var_b, level)
  tests[!given, `:=`(ratio_ci_low = ci$low[!given], ratio_ci_high = ci$high[!given])]
  order_trust_columns(tests)
}

order_trust_columns <- function(tests) {
  first <- names(tests)[seq_len(match("ratio", names(tests)))]
  setcolorder(tests, c(first, "ratio_ci_low", "ratio_ci_high", "p_value", "p_adjusted"))
  tests[]
}
