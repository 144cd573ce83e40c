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
  rows_of(dt, sg$row[tukey_keep(sg)], c(by, value))
}

# Which of the sorted values (sorted_groups) are within their group's bounds.
tukey_keep <- function(sg) {
  b <- bounds_of_sorted(sg)
  sg$x >= rep.int(b$lower, sg$n) & sg$x <= rep.int(b$upper, sg$n)
}

# Per group of the sorted values (sorted_groups): how many values lie within
# its bounds, and their median. Sorted, the values a group drops are at
# either end of it, so the kept ones are one contiguous stretch, found by
# binary search in every group at once (a few steps over the groups, none
# over the values). The same as medians_of_sorted(sg$x[tukey_keep(sg)], ...).
tukey_medians_sorted <- function(sg) {
  b <- bounds_of_sorted(sg)
  below <- count_sorted(sg, b$lower, inclusive = FALSE)   # x < lower
  kept <- count_sorted(sg, b$upper, inclusive = TRUE) - below
  first <- sg$start + below
  list(n = kept, median = (sg$x[first + (kept + 1L) %/% 2L] + sg$x[first + kept %/% 2L + 1L]) / 2)
}

# Per group of the sorted values: how many are below `bound` (<= bound with
# inclusive). Bisection on the count k, 0..n: the (k + 1)-th value is the
# first one not counted.
count_sorted <- function(sg, bound, inclusive) {
  low <- integer(length(sg$n))
  high <- sg$n
  open <- which(low < high)
  while (length(open)) {
    mid <- (low[open] + high[open]) %/% 2L
    value <- sg$x[sg$start[open] + mid + 1L]
    counted <- if (inclusive) value <= bound[open] else value < bound[open]
    low[open[counted]] <- mid[counted] + 1L
    high[open[!counted]] <- mid[!counted]
    open <- open[low[open] < high[open]]
  }
  low
}

# The run medians of rows (id, x) as data.table(id, median, n): per id,
# ascending, the median of the n values within its bounds (run_summary).
tukey_medians <- function(id, x) {
  m <- run_summary(id, x)
  data.table(id = m$id, median = m$median, n = m$n)
}

# Everything one pass over a run's rows (id, x) gives, as
# list(id, median, n, p90, p99, below, start, values): per id, ascending,
# the median of the n values within its bounds; numpy's 90th and 99th
# percentile of all its values (percentile_sorted); and where its values
# are, sorted: from position start (0-based) of the run's region of the
# value store (analyze/native/value_store.c), which begins at offset, or of
# `values` (when store is NULL); those within its bounds from start +
# below. The values of tukey_medians_sorted and percentile_sorted, bit for
# bit, from a grouped selection in C (analyze/native/tukey_medians.c)
# instead of R's full sort of the rows; from R itself where the C cannot be
# compiled (then store is NULL).
run_summary <- function(id, x, store = NULL, offset = 0) {
  m <- call_native("nbh_tukey_medians", id, x, store, offset)
  if (!is.null(m)) return(m)
  if (!length(id)) {
    return(list(id = integer(), median = numeric(), n = integer(), p90 = numeric(), p99 = numeric(),
                below = integer(), start = integer(), values = numeric()))
  }
  sg <- sorted_groups(data.table(id = id, x = x), "x", "id")
  kept <- tukey_medians_sorted(sg)
  list(id = id[sg$row[sg$start + 1L]], median = kept$median, n = kept$n,
       p90 = percentile_sorted(sg$x, sg$start, sg$n, 90), p99 = percentile_sorted(sg$x, sg$start, sg$n, 99),
       below = count_sorted(sg, bounds_of_sorted(sg)$lower, inclusive = FALSE), start = as.integer(sg$start),
       values = sg$x)
}

# Per group: the `by` columns, n, q1, q3, lower and upper bound.
tukey_bounds <- function(dt, value = "seconds", by = "id") {
  sg <- sorted_groups(dt, value, by)
  b <- bounds_of_sorted(sg)
  out <- rows_of(dt[, by, with = FALSE], sg$row[sg$start + 1L])
  out[, names(b) := b]
  out[]
}

bounds_of_sorted <- function(sg) {
  q1 <- quantile7_sorted(sg$x, sg$start, sg$n, 0.25)
  q3 <- quantile7_sorted(sg$x, sg$start, sg$n, 0.75)
  iqr <- q3 - q1
  list(n = sg$n, q1 = q1, q3 = q3, lower = q1 - 1.5 * iqr, upper = q3 + 1.5 * iqr)
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

# The order of dt by (by, value) -- none if its key says it is sorted --
# as: row, the rows of dt in that order; x, the values in that order; and
# each group of equal `by` values's size n and start (0-based offset).
sorted_groups <- function(dt, value, by) {
  cols <- c(by, value)
  if (identical(key(dt)[seq_along(cols)], cols)) {
    row <- seq_len(nrow(dt))
    x <- dt[[value]]
    n <- group_sizes(lapply(by, function(b) dt[[b]]))
  } else {
    row <- do.call(order, c(lapply(cols, function(col) dt[[col]]), method = "radix"))
    x <- dt[[value]][row]
    n <- group_sizes(lapply(by, function(b) dt[[b]][row]))
  }
  list(row = row, x = x, n = n, start = cumsum(c(0L, n[-length(n)])))
}

# Sizes of the runs of equal keys (a list of sorted vectors); one sorted
# integer key (an experiment id) is counted with tabulate, in one pass.
group_sizes <- function(keys) {
  k <- keys[[1]]
  if (length(keys) == 1L && is.integer(k) && length(k) && !anyNA(k) && k[length(k)] - k[1] < 4 * length(k)) {
    n <- tabulate(k - (k[1] - 1L), k[length(k)] - k[1] + 1L)
    return(n[n > 0L])
  }
  tabulate(rleidv(setDT(keys)))
}

# The rows i of dt (base subsetting, column by column: fast on one thread),
# keyed by `sorted` when the rows come out sorted by those columns.
rows_of <- function(dt, i, sorted = NULL) {
  out <- setDT(lapply(dt, `[`, i))
  if (!is.null(sorted)) setattr(out, "sorted", sorted)
  out
}

# The Tukey median of every (id, round) group of rows (id, round, x): the
# rounds of an interleaved run (SPEC 7.6), each one side of a paired
# comparison. list(id, round, median, n), ascending by id and round; in C
# where it can be (analyze/native/tukey_medians.c), else in R
# (round_medians_tukey: the reference).
round_summary <- function(id, round, x) {
  call_native("nbh_round_medians", as.integer(id), as.integer(round), as.double(x)) %||%
    round_medians_tukey(id, round, x)
}

round_medians_tukey <- function(id, round, x) {
  if (!length(id)) return(list(id = integer(), round = integer(), median = numeric(), n = integer()))
  dt <- data.table(id = as.integer(id), round = as.integer(round), x = as.double(x))
  sg <- sorted_groups(dt, "x", c("id", "round"))
  kept <- tukey_medians_sorted(sg)
  first <- sg$row[sg$start + 1L]
  list(id = dt$id[first], round = dt$round[first], median = kept$median, n = kept$n)
}
