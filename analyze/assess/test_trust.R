# What every test carries besides its ratio and p-value (SPEC 7.4): the
# p-value adjusted for the number of tests (adjust_family; the verdict
# uses it). Every test brings the confidence interval of its own test
# (assess_guideline: the two-level t interval, the signed-rank or the
# rank-sum test's distribution-free one); where a test has none (one run;
# too few runs to reach the level) it has none here either: such a test
# never holds.
#
# tests: the rows of all guidelines (assess_guideline, with a guideline
# column); v_thres is each test's own ratio threshold (its guideline's:
# GL16 and AR1 have 1.10), or one for all; family: the adjustment's family
# of each test (the A/A check's twins apart from the rest). Returns tests
# with p_adjusted, and violated decided with p_adjusted.
test_trust <- function(tests, p_thres, v_thres, adjust = "none", family = NULL) {
  tests <- copy(tests)
  tests[, p_adjusted := adjust_family(p_value, if ("p_reverse" %in% names(tests)) p_reverse, adjust,
                                      family %||% rep(1L, nrow(tests)))]
  if (adjust != "none") tests[, violated := violates(ratio, p_adjusted, p_thres, v_thres)]
  for (col in c("ratio_ci_low", "ratio_ci_high")) if (!col %in% names(tests)) set(tests, j = col, value = NA_real_)
  order_trust_columns(tests)
}

# P adjusted by METHOD within each FAMILY (the A/A check's twin tests are a
# family of their own: they must not change the real guidelines' verdicts).
# An a ~ b test is two tests, one per direction (P_REVERSE, the other
# direction's p; NA for a <= b): both count in the family, and the test's
# adjusted p is that of the direction it reports.
adjust_family <- function(p, p_reverse, method, family) {
  out <- rep(NA_real_, length(p))
  if (is.null(p_reverse)) p_reverse <- rep(NA_real_, length(p))
  for (f in unique(family)) {
    mine <- which(family == f)
    other <- mine[!is.na(p_reverse[mine])]
    adjusted <- adjust_p(c(p[mine], p_reverse[other]), method)
    out[mine] <- adjusted[seq_along(mine)]
  }
  out
}

order_trust_columns <- function(tests) {
  first <- names(tests)[seq_len(match("ratio", names(tests)))]
  setcolorder(tests, c(first, "ratio_ci_low", "ratio_ci_high", "p_value", "p_adjusted"))
  tests[]
}
