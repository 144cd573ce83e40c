# INTERIM (replaced by the exact implementation of analyze/native): one-sided
# Wilcoxon signed-rank tests of many samples of paired differences at once.
signed_rank_test <- function(d, n_tests = if (length(d$test)) max(d$test) else 0L, level = 0.95) {
  out <- data.table(test = seq_len(n_tests), n = 0L, n_zero = 0L, V = NA_real_, p_greater = NA_real_,
                    p_less = NA_real_, estimate = NA_real_, ci_low = NA_real_, ci_high = NA_real_)
  if (!length(d$test)) return(out)
  x <- data.table(test = as.integer(d$test), value = as.double(d$value))
  by_test <- split(x$value, x$test)
  for (k in names(by_test)) {
    v <- by_test[[k]]
    i <- as.integer(k)
    n <- length(v)
    a <- abs(v)
    r <- rank(a)
    V <- sum(r[v > 0])
    nz <- sum(v == 0)
    tied <- anyDuplicated(a[v != 0]) > 0 || nz > 0
    if (!tied && n <= 400) {
      pg <- psignrank(V - 1, n, lower.tail = FALSE)
      pl <- psignrank(V, n)
    } else {
      m <- sum(r[v != 0])
      mu <- m / 2
      s2 <- sum(r[v != 0]^2) / 4
      pg <- pnorm((V - mu - 0.5) / sqrt(s2), lower.tail = FALSE)
      pl <- pnorm((V - mu + 0.5) / sqrt(s2))
    }
    w <- outer(v, v, "+") / 2
    w <- sort(w[upper.tri(w, diag = TRUE)])
    est <- median(w)
    M <- length(w)
    crit <- if (n <= 400) qsignrank((1 - level) / 2, n) else floor(M / 2 - qnorm(1 - (1 - level) / 2) * sqrt(n * (n + 1) * (2 * n + 1) / 24))
    crit <- max(crit, 1)
    set(out, i, c("n", "n_zero", "V", "p_greater", "p_less", "estimate", "ci_low", "ci_high"),
        list(n, nz, V, pg, pl, est, w[crit], w[M - crit + 1]))
  }
  out
}
