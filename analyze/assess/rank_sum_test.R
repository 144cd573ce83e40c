# One-sided Wilcoxon rank-sum tests (SPEC 5, step 2) for many tests at once.
# For each test, x and y are the run medians of the two sides; p_x_right is
# the p-value of "x lies to the right of y", p_y_right that of "y lies to
# the right of x" (only if both = TRUE), bit for bit what
#   wilcox.test(x, y, alternative = "greater")$p.value
#   wilcox.test(y, x, alternative = "greater")$p.value
# return with R's defaults: the exact distribution (pwilcox) when both
# samples have fewer than 50 values and there are no ties, otherwise the
# normal approximation with continuity correction and tie correction
# (ties = "study": the study's method, Tables 3/4).
#
# ties = "exact": the tests that R approximates, with ties or with 50 values
# or more on a side, get the exact conditional p-value instead: that of the
# sum of x's midranks over all C(n_x + n_y, n_x) ways to choose n_x of the
# pooled values, the midranks as observed (the Streitberg-Roehmel shift
# algorithm, as exactRankTests and coin compute it); the others keep
# pwilcox's values. Exact while the algorithm's table, (k + 1) (B + 1)
# counts (k the smaller sample, B the tail in doubled midranks), stays
# within 2^25 (some 150 values a side); beyond, the normal approximation.
#
# d: data.table(test, value, is_x), or a list of the three, with test an
# integer 1..T.
# Returns data.table(test, n_x, n_y, W, exact, p_x_right, p_y_right), where W is
# the statistic of wilcox.test(x, y): the rank sum of x minus n_x (n_x + 1) / 2.

rank_sum_test <- function(d, n_tests = if (length(d$test)) max(d$test) else 0L, both = TRUE,
                          ties = c("study", "exact")) {
  ties <- match.arg(ties)
  r <- call_native("nbh_rank_sum_test", as.integer(d$test), as.double(d$value), as.logical(d$is_x),
                   as.integer(n_tests), isTRUE(both), ties == "exact")
  if (is.null(r)) rank_sum_test_sorted(d, n_tests, both, ties) else setDT(r)
}

# The same in R, on every (test, value) row at once, sorted: the reference
# of the C routine (analyze/native/rank_sum_test.c), and what runs without it.
rank_sum_test_sorted <- function(d, n_tests = if (length(d$test)) max(d$test) else 0L, both = TRUE,
                                 ties = c("study", "exact")) {
  ties <- match.arg(ties)
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
  if (ties == "exact") {
    by_test <- factor(test, levels = seq_len(n_tests))
    doubled <- split(2 * rank, by_test)
    member <- split(is_x, by_test)
    for (t in which(!exact & n_x > 0 & n_y > 0)) {
      p <- exact_rank_sum_p(doubled[[t]], member[[t]])
      if (is.null(p)) next
      exact[t] <- TRUE
      p_x_right[t] <- p[1L]
      if (both) p_y_right[t] <- p[2L]
    }
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

# The exact conditional c(P(T_x >= t_x), P(T_x <= t_x)) of one test: a its
# doubled midranks (ascending), in_x which are x's. T is the sum of the
# smaller sample's (size k); its tail on its side of the mean is the count
# of the k-subsets of the items b (a - min(a), or max(a) - a for the upper
# tail, divided by their common divisor) with sum <= B, over C(N, k); the
# other tail is 1 - that below B. NULL if the table would exceed 2^25
# counts. The C routine's shift_counts, unpruned (the same counts).
exact_rank_sum_p <- function(a, in_x) {
  N <- length(a)
  A <- sum(a)
  small_is_x <- sum(in_x) <= N - sum(in_x)
  k <- if (small_is_x) sum(in_x) else N - sum(in_x)
  ts <- if (small_is_x) sum(a[in_x]) else A - sum(a[in_x])
  lower <- N * ts <= k * A
  b <- if (lower) a - a[1L] else a[N] - rev(a)
  g <- Reduce(function(x, y) { while (y != 0) { r <- x %% y; x <- y; y <- r }; x }, b, 0)
  if (g == 0) g <- 1
  B <- (if (lower) ts - k * a[1L] else k * a[N] - ts) / g
  if ((k + 1) * (B + 1) > 2^25) return(NULL)
  b <- b / g
  G <- matrix(0, B + 1, k + 1)
  G[1L, 1L] <- 1
  for (i in seq_len(N)) {   # every size j at once, each from the size j - 1 before this item
    if (b[i] > B) break
    s <- (b[i] + 1):(B + 1)
    j <- seq_len(min(i, k))
    G[s, j + 1L] <- G[s, j + 1L] + G[s - b[i], j]
  }
  total <- prod((N - k + seq_len(k)) / seq_len(k))
  small <- sum(G[, k + 1L]) / total
  large <- 1 - (if (B > 0) sum(G[seq_len(B), k + 1L]) else 0) / total
  at_most <- if (lower) small else large
  at_least <- if (lower) large else small
  if (small_is_x) c(at_least, at_most) else c(at_most, at_least)
}
