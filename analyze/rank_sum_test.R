# One-sided Wilcoxon rank-sum tests (SPEC 5, step 2) for many tests at once.
# For each test, x and y are the run medians of the two sides; p_x_right is
# the p-value of "x lies to the right of y", p_y_right that of "y lies to
# the right of x", bit for bit what
#   wilcox.test(x, y, alternative = "greater")$p.value
#   wilcox.test(y, x, alternative = "greater")$p.value
# return with R's defaults: the exact distribution (pwilcox) when both
# samples have fewer than 50 values and there are no ties, otherwise the
# normal approximation with continuity correction and tie correction.
#
# d: data.table(test, value, is_x) with test an integer 1..T.
# Returns data.table(test, n_x, n_y, W, exact, p_x_right, p_y_right), where W is
# the statistic of wilcox.test(x, y): the rank sum of x minus n_x (n_x + 1) / 2.

rank_sum_test <- function(d, n_tests = if (nrow(d)) max(d$test) else 0L) {
  o <- order(d$test, d$value, method = "radix")
  test <- d$test[o]
  value <- d$value[o]
  is_x <- d$is_x[o]
  n <- tabulate(test, n_tests)
  start <- cumsum(c(0L, n[-n_tests]))
  # Ranks within each test, ties get their average rank (as rank() does).
  position <- seq_along(test) - start[test]
  tie <- cumsum(c(TRUE, test[-1L] != test[-length(test)] | value[-1L] != value[-length(value)]))
  tie_size <- tabulate(tie)
  tie_first <- position[!duplicated(tie)]
  rank <- tie_first[tie] + (tie_size[tie] - 1) / 2
  n_x <- tabulate(test[is_x], n_tests)
  n_y <- n - n_x
  rank_sum_x <- numeric(n_tests)
  sums <- rowsum(rank[is_x], test[is_x])
  rank_sum_x[as.integer(rownames(sums))] <- sums[, 1]
  W <- rank_sum_x - n_x * (n_x + 1) / 2
  tie_test <- test[!duplicated(tie)]
  tie_term <- numeric(n_tests)
  tt <- rowsum(tie_size^3 - tie_size, tie_test)
  tie_term[as.integer(rownames(tt))] <- tt[, 1]
  exact <- n_x < 50 & n_y < 50 & tie_term == 0
  p_x_right <- p_y_right <- rep(NA_real_, n_tests)
  e <- which(exact & n_x > 0 & n_y > 0)
  if (length(e)) {
    p_x_right[e] <- pwilcox(W[e] - 1, n_x[e], n_y[e], lower.tail = FALSE)
    p_y_right[e] <- pwilcox(n_x[e] * n_y[e] - W[e] - 1, n_y[e], n_x[e], lower.tail = FALSE)
  }
  a <- which(!exact & n_x > 0 & n_y > 0)
  if (length(a)) {
    N <- n_x[a] + n_y[a]
    sigma <- sqrt((n_x[a] * n_y[a] / 12) * ((N + 1) - tie_term[a] / (N * (N - 1))))
    z <- W[a] - n_x[a] * n_y[a] / 2
    p_x_right[a] <- pnorm((z - 0.5) / sigma, lower.tail = FALSE)
    p_y_right[a] <- pnorm((-z - 0.5) / sigma, lower.tail = FALSE)
  }
  data.table(test = seq_len(n_tests), n_x = n_x, n_y = n_y, W = W, exact = exact,
             p_x_right = p_x_right, p_y_right = p_y_right)
}
