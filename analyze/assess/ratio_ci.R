# The confidence interval of a violation ratio (SPEC 7.4, "Effect size"):
# ratio = median(a) / median(b) of two sides' run medians, and the
# bootstrap over runs of its uncertainty.
#
# The bootstrap resamples each side's runs with replacement and takes the
# median again. Rather than drawing resamples at random, the distribution of
# the resampled median is enumerated exactly: a resample of n sorted values
# x_1 <= ... <= x_n has its median at x_k (n odd), or at (x_i + x_j) / 2
# (n even; i, j the positions of its two middle values), with probabilities
# that depend on n alone (median_resample_pmf). That is the bootstrap with
# infinitely many resamples: no Monte Carlo noise, no seed, the same
# interval on every run, and it costs one log per possible resampled median
# (n for odd n, about 8 n for even n) per cell instead of resamples x n.
# The two sides are resampled independently, so on the log scale their
# variances add, and the interval is the bootstrap normal interval there:
#   exp(log(ratio) -/+ z_(1 - (1 - level) / 2) * sqrt(var*(log median a) + var*(log median b)))
# (Efron & Tibshirani, An Introduction to the Bootstrap, 13.2; the log makes
# it a ratio interval: never below 0, as wide either way in factors).
# A side with fewer than 2 runs has no interval (NA).
#
# Pure functions; issue 11's release regression reuses them:
#   ratio_ci(a, b, level)               one pair of run-median vectors
#   median_resample_pmf(n)              the enumeration, for n values
#   log_median_var(x)                   var*(log median) of one vector of run medians
#   log_median_spread(medians)          the same for every cell of a table
#   ratio_intervals(ratio, var_a, var_b, level)   many tests at once

# The distribution of the resampled median's position(s): list(i, j, p) --
# the median is (x_i + x_j) / 2 with probability p (i = j for odd n).
# Order statistics of a resample: X*_(m) <= x_k iff at least m of the n draws
# fall on x_1..x_k, so P(X*_(m) <= x_k) = P(Binomial(n, k / n) >= m). For
# even n (m = n / 2), the middle pair is (x_i, x_j), i < j, when exactly m
# draws fall on x_1..x_i, at least one on x_i, and the other n - m on
# x_j..x_n, at least one on x_j:
#   C(n, m) ((i/n)^m - ((i-1)/n)^m) (((n-j+1)/n)^(n-m) - ((n-j)/n)^(n-m));
# i = j takes the rest of P(X*_(m) = x_i). Pairs below 1e-14 are dropped.
median_resample_pmf <- function(n) {
  n <- as.integer(n)
  if (is.na(n) || n < 1L) stop("median_resample_pmf: n must be a positive integer")
  m <- (n + 1L) %/% 2L
  k <- 0:n
  at_most <- pbinom(m - 1L, n, k / n, lower.tail = FALSE)   # P(X*_(m) <= x_k), k = 0..n
  p_m <- diff(at_most)                                        # P(X*_(m) = x_i), i = 1..n
  if (n %% 2L == 1L) return(list(i = seq_len(n), j = seq_len(n), p = p_m))
  low <- choose(n, m) * ((k[-1L] / n)^m - (k[-(n + 1L)] / n)^m)
  high <- ((n - k[-1L] + 1) / n)^(n - m) - ((n - k[-1L]) / n)^(n - m)
  pair <- outer(low, high)
  pair[lower.tri(pair, diag = TRUE)] <- 0
  diag(pair) <- p_m - rowSums(pair)
  keep <- which(pair > 1e-14, arr.ind = TRUE)
  keep <- keep[order(keep[, 1L], keep[, 2L]), , drop = FALSE]
  list(i = unname(keep[, 1L]), j = unname(keep[, 2L]), p = pair[keep])
}

# var*(log median of a resample) of every column of x (n x C, each column
# one cell's n >= 2 run medians, sorted), exactly: the weighted variance of
# log((x_i + x_j) / 2) over the resample-median's distribution. Medians of
# probability below 1e-9 (far from the middle; 1e-7 of the mass at n = 30)
# are left out. The logs are taken relative to each cell's median, which
# keeps them small beside their variance. In C where it can be
# (analyze/native/log_median_var.c: the same values, a column at a time).
log_median_var_matrix <- function(x) {
  d <- median_resample_pmf(nrow(x))
  keep <- d$p > 1e-9
  p <- d$p[keep] / sum(d$p[keep])
  call_native("nbh_log_median_var", x, d$i[keep], d$j[keep], p) %||% weighted_log_var(x, d$i[keep], d$j[keep], p)
}

# The weighted variance of log((x_i + x_j) / (2 median)) of every column,
# in R: the reference of the C routine.
weighted_log_var <- function(x, i, j, p) {
  n <- nrow(x)
  middle <- x[(n + 1L) %/% 2L, ] / 2 + x[n %/% 2L + 1L, ] / 2
  v <- log((x[i, , drop = FALSE] + x[j, , drop = FALSE]) / rep(2 * middle, each = length(p)))
  mean <- colSums(p * v)
  pmax(colSums(p * v * v) - mean * mean, 0)
}

# The same for one vector of run medians: NA with fewer than 2.
log_median_var <- function(x) {
  x <- sort(as.numeric(x))
  if (length(x) < 2L) return(NA_real_)
  log_median_var_matrix(matrix(x))
}

# Many tests at once: ratio, and the two sides' var* of the log median.
ratio_intervals <- function(ratio, var_a, var_b, level = 0.95) {
  half <- qnorm(1 - (1 - level) / 2) * sqrt(var_a + var_b)
  list(low = ratio * exp(-half), high = ratio * exp(half))
}

# One pair of run-median vectors: c(ratio, low, high) of median(a) / median(b).
ratio_ci <- function(a, b, level = 0.95) {
  a <- as.numeric(a)
  b <- as.numeric(b)
  if (!length(a) || !length(b) || any(!is.finite(c(a, b))) || any(c(a, b) <= 0)) {
    stop("ratio_ci: a and b must be positive finite run medians")
  }
  ratio <- median(a) / median(b)
  ci <- ratio_intervals(ratio, log_median_var(a), log_median_var(b), level)
  c(ratio = ratio, low = ci$low, high = ci$high)
}

# var*(log median) of every cell of medians (data.table(cell, median, ...)),
# all cells with the same number of runs in one matrix step. Returns
# data.table(cell, runs, log_var) keyed by cell.
log_median_spread <- function(medians) {
  m <- medians[, .(cell, median)]
  setorderv(m, c("cell", "median"))
  sizes <- m[, .N, keyby = cell]
  runs_of_row <- rep.int(sizes$N, sizes$N)
  spread <- rbindlist(lapply(unique(sizes$N), function(n) {
    cells <- sizes$cell[sizes$N == n]
    if (n < 2L) return(data.table(cell = cells, runs = n, log_var = NA_real_))
    x <- matrix(m$median[runs_of_row == n], nrow = n)   # one sorted column per cell
    data.table(cell = cells, runs = n, log_var = log_median_var_matrix(x))
  }))
  setkey(spread, cell)
  spread[]
}
