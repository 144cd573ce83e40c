# Tukey's outlier filter (SPEC 5, step 1): within each group (a parameter
# combination in one run), values outside [q1 - 1.5 IQR, q3 + 1.5 IQR] are
# dropped, the bounds included. Quartiles are R's default quantile type 7
# (linear interpolation between order statistics, h = (n - 1) p + 1),
# computed exactly as stats::quantile does, for all groups at once on the
# sorted values.

# The rows of dt within their group's bounds, sorted (and keyed) by
# (by, value).
tukey_filter <- function(dt, value = "seconds", by = "id") {
  if (!nrow(dt)) return(dt[0])
  sg <- sorted_groups(dt, value, by)
  b <- bounds_of_sorted(sg, value, by)
  x <- sg$sorted[[value]]
  keep <- x >= rep.int(b$lower, sg$n) & x <= rep.int(b$upper, sg$n)
  rows_of(sg$sorted, keep, c(by, value))
}

# Per group: n, q1, q3, lower and upper bound.
tukey_bounds <- function(dt, value = "seconds", by = "id") {
  bounds_of_sorted(sorted_groups(dt, value, by), value, by)
}

bounds_of_sorted <- function(sg, value, by) {
  x <- sg$sorted[[value]]
  q1 <- quantile7_sorted(x, sg$start, sg$n, 0.25)
  q3 <- quantile7_sorted(x, sg$start, sg$n, 0.75)
  iqr <- q3 - q1
  b <- rows_of(sg$sorted[, by, with = FALSE], sg$start + 1L)
  b[, `:=`(n = sg$n, q1 = q1, q3 = q3, lower = q1 - 1.5 * iqr, upper = q3 + 1.5 * iqr)]
  b[]
}

# Quantile type 7 of each group of the sorted vector x (groups given by
# start, a 0-based offset, and size n), as stats::quantile(type = 7).
quantile7_sorted <- function(x, start, n, p) {
  index <- 1 + (n - 1) * p
  lo <- floor(index)
  hi <- ceiling(index)
  q <- x[start + lo]
  x_hi <- x[start + hi]
  i <- which(index > lo & x_hi != q)
  h <- (index - lo)[i]
  q[i] <- (1 - h) * q[i] + h * x_hi[i]
  q
}

# dt sorted by (by, value), unless its key says it is, with its groups:
# size n and start (0-based row offset) of each group of equal `by` values.
sorted_groups <- function(dt, value, by) {
  cols <- c(by, value)
  s <- dt
  if (!identical(key(dt)[seq_along(cols)], cols)) {
    s <- rows_of(dt, do.call(order, c(unname(as.list(dt)[cols]), method = "radix")), cols)
  }
  n <- tabulate(rleidv(s, by))
  list(sorted = s, n = n, start = cumsum(c(0L, n[-length(n)])))
}

# The rows i of dt (base subsetting, column by column: fast on one thread),
# keyed by `sorted` when the rows come out sorted by those columns.
rows_of <- function(dt, i, sorted = NULL) {
  out <- setDT(lapply(dt, `[`, i))
  if (!is.null(sorted)) setattr(out, "sorted", sorted)
  out
}
