# Exact conditional Wilcoxon signed-rank tests of paired differences (SPEC
# 7.6), many at once, with the Hodges-Lehmann estimate and its
# distribution-free interval.
#
# d: data.table(test, value), or a list of the two: test an integer 1..T,
# value one paired difference each (e.g. log(a / b) of one run or round),
# finite. Per test, with n differences of which n_zero are 0:
# - the ranks of |d| with midranks for ties, the zeros included (Pratt's
#   method); V = the sum of the positive differences' ranks;
# - p_greater (H1: the differences tend to be > 0) = P(V* >= V) and p_less
#   = P(V* <= V), exact and conditional whatever the ties and zeros: V* is
#   the sum of the ranks of a random subset of the nonzero differences (each
#   sign + or - with probability 1/2, the ranks as observed). Without ties
#   and zeros these are wilcox.test(d, alternative = ...)'s exact p-values;
#   with zeros wilcox.test drops them (and approximates), Pratt keeps their
#   ranks, as coin::wilcoxsign_test does;
# - estimate: the Hodges-Lehmann estimate, the median of the n (n + 1) / 2
#   Walsh averages (d_i + d_j) / 2, i <= j; ci_low, ci_high: the two-sided
#   `level` interval of the Walsh averages of ranks qu and n (n + 1) / 2 -
#   qu + 1, qu = qsignrank((1 - level) / 2, n) (1 if 0): bit for bit
#   wilcox.test(d, conf.int = TRUE, exact = TRUE, conf.level = level)
#   without ties and zeros. With ties or zeros the same order statistics of
#   all n differences (zeros included): the interval inverts the test of
#   d - theta, whose differences are no longer 0 or tied at other theta;
#   its coverage is exact for continuous differences and conservative for
#   rounded ones (simulated: 0.98-1.00 at 95 %). With few pairs the level cannot be
#   reached (n <= 5 at 95 %): the interval is then the range of the Walsh
#   averages, as wilcox.test's.
# Returns data.table(test, n, n_zero, V, p_greater, p_less, estimate,
# ci_low, ci_high); a test without rows has n = 0 and NA elsewhere.
# At most 1000 pairs per test.

signed_rank_test <- function(d, n_tests = if (length(d$test)) max(d$test) else 0L, level = 0.95) {
  check_signed_rank_input(d, level)
  r <- call_native("nbh_signed_rank_test", as.integer(d$test), as.double(d$value), as.integer(n_tests),
                   as.double(level))
  if (is.null(r)) signed_rank_test_sorted(d, n_tests, level) else setDT(r)
}

check_signed_rank_input <- function(d, level) {
  if (!all(is.finite(d$value))) stop("signed_rank_test: the differences must be finite numbers")
  if (!(length(level) == 1L && is.finite(level) && level > 0 && level < 1)) {
    stop("signed_rank_test: level must be a number between 0 and 1")
  }
  if (length(d$test) && max(tabulate(d$test)) > 1000L) stop("signed_rank_test: more than 1000 pairs in a test")
}

# The same in R (every row sorted by test and |d| at once; each test's
# counts as the C routine's), the reference of analyze/native/
# signed_rank_test.c, and what runs without it.
signed_rank_test_sorted <- function(d, n_tests = if (length(d$test)) max(d$test) else 0L, level = 0.95) {
  check_signed_rank_input(d, level)
  test <- as.integer(d$test)
  value <- as.double(d$value)
  n <- tabulate(test, n_tests)
  start <- cumsum(n) - n
  # Doubled midranks of |d| within each test: first + last position of a tie group.
  o <- order(test, abs(value), method = "radix")
  t_o <- test[o]
  a_o <- abs(value[o])
  N <- length(o)
  first <- if (N) c(TRUE, t_o[-1L] != t_o[-N] | a_o[-1L] != a_o[-N]) else logical()
  group <- cumsum(first)
  size <- tabulate(group)
  position <- seq_len(N) - start[t_o]
  doubled <- 2 * position[first][group] + size[group] - 1
  nonzero <- a_o != 0
  positive <- value[o] > 0
  n_zero <- tabulate(t_o[!nonzero], n_tests)
  v2 <- vapply(split(doubled * positive, factor(t_o, levels = seq_len(n_tests))), sum, 0)
  tied <- tabulate(t_o[nonzero & size[group] > 1L], n_tests) > 0L
  p_greater <- p_less <- rep(NA_real_, n_tests)
  # Tied tests: each its own counts, up to the tail it needs.
  items <- split(doubled[nonzero], factor(t_o[nonzero], levels = seq_len(n_tests)))
  for (t in which(tied)) {
    p <- tied_signed_rank_p(items[[t]], v2[t])
    p_greater[t] <- p[1L]
    p_less[t] <- p[2L]
  }
  # Untied tests: the ranks z+1..n, one table per (z, n), grown by n.
  untied <- which(!tied & n > 0L)
  for (z in sort(unique(n_zero[untied]))) {
    these <- untied[n_zero[untied] == z]
    p <- untied_signed_rank_p(z, n[these], v2[these] / 2)
    p_greater[these] <- p$p_greater
    p_less[these] <- p$p_less
  }
  walsh <- walsh_intervals(split(value, factor(test, levels = seq_len(n_tests))), n, level)
  data.table(test = seq_len(n_tests), n = n, n_zero = n_zero, V = v2 / 2, p_greater = p_greater, p_less = p_less,
             estimate = walsh$estimate, ci_low = walsh$ci_low, ci_high = walsh$ci_high)
}

# The p-values c(P(V* >= v), P(V* <= v)) of a statistic v of S (the items'
# sum, symmetric about S / 2), from F(t - 1) and F(t), t = min(v, S - v).
signed_rank_p <- function(v, S, f_below, f_at) {
  if (2 * v <= S) c(1 - f_below, f_at) else c(f_at, 1 - f_below)
}

# One tied test: the doubled ranks of its nonzero differences (ascending)
# and V doubled, reduced by their common divisor; the counts of the subset
# sums up to t, each step c[s] += c[s - a].
tied_signed_rank_p <- function(a, v2) {
  g <- Reduce(function(x, y) { while (y != 0) { r <- x %% y; x <- y; y <- r }; x }, a, 0)
  if (g == 0) g <- 1
  a <- a / g
  S <- sum(a)
  v <- v2 / g
  t <- if (2 * v <= S) v else S - v
  counts <- c(1, numeric(t))
  for (ai in a[a <= t]) {
    s <- (ai + 1):(t + 1)
    counts[s] <- counts[s] + counts[s - ai]
  }
  F <- cumsum(counts * 2^-length(a))
  signed_rank_p(v, S, if (t > 0) F[t] else 0, F[t + 1])
}

# Tests of z zeros and no other ties: their n and V; the counts of the ranks
# z+1..n grown rank by rank to each n.
untied_signed_rank_p <- function(z, n, v) {
  p_greater <- p_less <- numeric(length(n))
  S_max <- sum(seq_len(max(n))) - sum(seq_len(z))
  counts <- c(1, numeric(S_max))
  S <- 0
  at <- z
  for (target in sort(unique(n))) {
    while (at < target) {
      at <- at + 1
      S <- S + at
      s <- (at + 1):(S + 1)
      counts[s] <- counts[s] + counts[s - at]
    }
    F <- cumsum(counts[seq_len(S %/% 2 + 1)] * 2^-(target - z))
    for (i in which(n == target)) {
      t <- if (2 * v[i] <= S) v[i] else S - v[i]
      p <- signed_rank_p(v[i], S, if (t > 0) F[t] else 0, F[t + 1])
      p_greater[i] <- p[1L]
      p_less[i] <- p[2L]
    }
  }
  list(p_greater = p_greater, p_less = p_less)
}

# Per test (values: a list of each test's differences, n their numbers) the
# median of the Walsh averages and those of ranks qu and M - qu + 1, as
# wilcox.test computes them (every average, sorted).
walsh_intervals <- function(values, n, level) {
  qu <- rep(NA_real_, length(n))
  present <- unique(n[n > 0L])
  qu[n > 0L] <- qsignrank((1 - level) / 2, present)[match(n[n > 0L], present)]
  qu[qu %in% 0] <- 1
  estimate <- ci_low <- ci_high <- rep(NA_real_, length(n))
  for (t in which(n > 0L)) {
    x <- values[[t]]
    sums <- outer(x, x, "+")
    diffs <- sort(sums[!lower.tri(sums)]) / 2
    estimate[t] <- median(diffs)
    ci_low[t] <- diffs[qu[t]]
    ci_high[t] <- diffs[length(diffs) - qu[t] + 1]
  }
  list(estimate = estimate, ci_low = ci_low, ci_high = ci_high)
}
