# The median of each group (SPEC 5, step 1: the median m(l, r) of the values
# of parameter combination l in run r that the Tukey filter kept), with the
# number of values it is taken from. Same value as stats::median.

run_medians <- function(dt, value = "seconds", by = "id") {
  if (!nrow(dt)) {
    out <- dt[0, by, with = FALSE]
    return(out[, `:=`(median = numeric(), n = integer())][])
  }
  sg <- sorted_groups(dt, value, by)
  out <- rows_of(dt[, by, with = FALSE], sg$row[sg$start + 1L])
  out[, `:=`(median = medians_of_sorted(sg$x, sg$n), n = sg$n)]
  out[]
}

# The median of each group of the sorted vector x (consecutive groups of
# sizes n): the middle order statistic, or the mean of the two middle ones.
medians_of_sorted <- function(x, n) {
  start <- cumsum(c(0L, n[-length(n)]))
  (x[start + (n + 1L) %/% 2L] + x[start + n %/% 2L + 1L]) / 2
}
