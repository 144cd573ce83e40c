# Whether a test can find a violation at all (SPEC 7.4, "Power"). The
# two-level test (method paired, launch_test.R: a t test over the runs) and
# the test of launch pairs need two runs at least (one degree of freedom);
# with them p can be as small as the runs agree. The pooled test of n
# round units (method rounds) gives at best p = 2^-n, when every unit has a
# slower (zero differences carry no sign: n counts the nonzero ones). With
# n_a and n_b run medians a side, the exact one-sided rank-sum test gives at
# best p = 1 / C(n_a + n_b, n_a): every ordering of the runs is equally
# likely under "no difference", and only one puts all of a's runs above
# all of b's (ties make it larger still). Six runs a side give at best
# 1 / 924 = 0.00108: no violation at p <= 0.001 is possible, whatever the
# ratio. The analysis marks such guidelines "cannot detect"; generate warns
# before a campaign is run (gen/power.py says the same in Python).

# The smallest p-value of the one-sided rank-sum test with n_a and n_b values.
min_attainable_p <- function(n_a, n_b) {
  out <- 1 / choose(n_a + n_b, n_a)
  out[is.na(n_a) | is.na(n_b) | n_a < 1 | n_b < 1] <- NA_real_
  out
}

# The smallest p-value of the one-sided signed-rank test of n paired units.
min_attainable_paired_p <- function(n) {
  out <- 0.5^n
  out[is.na(n) | n < 1] <- NA_real_
  out
}

# The smallest adjusted p-value a test could reach among m tests: Holm
# multiplies the smallest p by m; Benjamini-Hochberg leaves a p that every
# test shares unchanged (m / m).
smallest_adjusted_p <- function(p, method, m) {
  if (identical(method, "holm")) pmin(p * m, 1) else p
}

# The smallest p each test of TT could reach at all, by its method: 0 for a
# test over runs with a degree of freedom (1 without), 2^-n for the pooled
# test of n round units, 1 / C(n_a + n_b, n_a) for a rank-sum test.
smallest_attainable_p <- function(tt) {
  method <- if ("method" %in% names(tt)) tt$method else rep("study", nrow(tt))
  df <- if ("df" %in% names(tt)) tt$df else rep(NA_integer_, nrow(tt))
  pairs <- if ("pairs" %in% names(tt)) tt$pairs else rep(NA_integer_, nrow(tt))
  fifelse(method %in% c("paired", "launches"), fifelse(fcoalesce(df, 0L) >= 1L, 0, 1),
          fifelse(method == "rounds", min_attainable_paired_p(pairs), min_attainable_p(tt$runs_a, tt$runs_b)))
}

# summary with the columns of SPEC 7.4 appended, per guideline and context
# (summary_table): min_p_value and min_p_adjusted, the smallest p of its
# tests before and after the adjustment; smallest_p, the smallest p its
# tests could reach at all (adjusted as the verdict is); power, "cannot
# detect" when no test could reach its threshold (p_look, an adaptive
# look's, where TT has it, else P_THRES), else "ok" (empty without tests).
summary_power <- function(summary, tt, p_thres, adjust = "none") {
  by <- c("guideline_no", RUN_PARAMETERS)
  m <- nrow(tt)
  tt <- copy(tt)
  tt[, reach := smallest_adjusted_p(smallest_attainable_p(tt), adjust, m)]
  tt[, threshold := if ("p_look" %in% names(tt)) fcoalesce(as.numeric(p_look), p_thres) else p_thres]
  best <- tt[, .(min_p_value = min(p_value), min_p_adjusted = min(p_adjusted), smallest_p = min(reach),
                 blind = all(reach > threshold * (1 + EDGE_TOLERANCE))), by = by]
  out <- copy(summary)
  out[best, on = by, `:=`(min_p_value = i.min_p_value, min_p_adjusted = i.min_p_adjusted,
                          smallest_p = i.smallest_p, blind = i.blind)]
  for (col in c("min_p_value", "min_p_adjusted", "smallest_p")) {
    if (!col %in% names(out)) set(out, j = col, value = NA_real_)
  }
  if (!"blind" %in% names(out)) out[, blind := NA]
  out[, power := fifelse(is.na(smallest_p), "", fifelse(blind %in% TRUE, "cannot detect", "ok"))]
  out[, blind := NULL]
  out[]
}

# The fewest runs a side with which the test can reach P.
runs_needed <- function(p) {
  n <- 1L
  while (min_attainable_p(n, n) > p) n <- n + 1L
  n
}
