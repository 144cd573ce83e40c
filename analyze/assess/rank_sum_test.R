# One-sided Wilcoxon rank-sum tests (SPEC 5, step 2) for many tests at once.
# For each test, x and y are the run medians of the two sides; p_x_right is
# the p-value of "x lies to the right of y", p_y_right that of "y lies to
# the right of x" (only if both = TRUE), bit for bit what
#   wilcox.test(x, y, alternative = "greater")$p.value
#   wilcox.test(y, x, alternative = "greater")$p.value
# return with R's defaults: the exact distribution (pwilcox) when both
# samples have fewer than 50 values and there are no ties, otherwise the
# normal approximation with continuity correction and tie correction.
#
# d: data.table(test, value, is_x), or a list of the three, with test an
# integer 1..T.
# Returns data.table(test, n_x, n_y, W, exact, p_x_right, p_y_right), where W is
# the statistic of wilcox.test(x, y): the rank sum of x minus n_x (n_x + 1) / 2.

rank_sum_test <- function(d, n_tests = if (length(d$test)) max(d$test) else 0L, both = TRUE, exact_ties = FALSE) {
  r <- call_native("nbh_rank_sum_test", as.integer(d$test), as.double(d$value), as.logical(d$is_x),
                   as.integer(n_tests), isTRUE(both))
  if (is.null(r)) rank_sum_test_sorted(d, n_tests, both) else setDT(r)
}

# The same in R, on every (test, value) row at once, sorted: the reference
# of the C routine (analyze/native/rank_sum_test.c), and what runs without it.
rank_sum_test_sorted <- function(d, n_tests = if (length(d$test)) max(d$test) else 0L, both = TRUE) {
  o <- order(d$test, d$value, method = "radix")
  test <- d$test[o]
  value <- d$value[o]
  is_x <- d$is_x[o]
  N <- length(test)
  n <- tabulate(test, n_tests)
  end <- cumsum(n)
  start <- end - n
  # Sums over each test's rows, from running sums (the rows are by test).
  per_test <- function(v, at_end = end, at_start = start) {
    s <- c(0, cumsum(v))
    s[at_end + 1L] - s[at_start + 1L]
  }
  # Ranks within each test; ties get their average rank, as rank() does.
  position <- seq_len(N) - start[test]
  first <- c(TRUE, test[-1L] != test[-N] | value[-1L] != value[-N])
  tie <- cumsum(first)
  tie_size <- tabulate(tie)
  rank <- position[first][tie] + (tie_size[tie] - 1) / 2
  n_x <- tabulate(test[is_x], n_tests)
  n_y <- n - n_x
  W <- per_test(rank * is_x) - n_x * (n_x + 1) / 2
  # sum(t^3 - t) over each test's tie groups (zero without ties)
  tie_end <- cumsum(tabulate(test[first], n_tests))
  tie_term <- per_test(tie_size^3 - tie_size, tie_end, tie_end - tabulate(test[first], n_tests))
  exact <- n_x < 50 & n_y < 50 & tie_term == 0
  p_x_right <- p_y_right <- rep(NA_real_, n_tests)
  e <- which(exact & n_x > 0 & n_y > 0)
  if (length(e)) {
    p_x_right[e] <- pwilcox(W[e] - 1, n_x[e], n_y[e], lower.tail = FALSE)
    if (both) p_y_right[e] <- pwilcox(n_x[e] * n_y[e] - W[e] - 1, n_y[e], n_x[e], lower.tail = FALSE)
  }
  a <- which(!exact & n_x > 0 & n_y > 0)
  if (length(a)) {
    all <- n_x[a] + n_y[a]
    sigma <- sqrt((n_x[a] * n_y[a] / 12) * ((all + 1) - tie_term[a] / (all * (all - 1))))
    z <- W[a] - n_x[a] * n_y[a] / 2
    p_x_right[a] <- pnorm((z - 0.5) / sigma, lower.tail = FALSE)
    if (both) p_y_right[a] <- pnorm((-z - 0.5) / sigma, lower.tail = FALSE)
  }
  data.table(test = seq_len(n_tests), n_x = n_x, n_y = n_y, W = W, exact = exact,
             p_x_right = p_x_right, p_y_right = p_y_right)
}
