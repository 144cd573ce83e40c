# The median of each group (SPEC 5, step 1: the median m(l, r) of the values
# of parameter combination l in run r that the Tukey filter kept), with the
# number of values it is taken from. Same value as stats::median.

run_medians <- function(dt, value = "seconds", by = "id") {
  if (!nrow(dt)) {
    out <- dt[0, by, with = FALSE]
    return(out[, `:=`(median = numeric(), n = integer())][])
  }
  sg <- sorted_groups(dt, value, by)
  x <- sg$sorted[[value]]
  n <- sg$n
  # The middle order statistics: the same one twice for odd n.
  m <- (x[sg$start + (n + 1L) %/% 2L] + x[sg$start + n %/% 2L + 1L]) / 2
  out <- rows_of(sg$sorted[, by, with = FALSE], sg$start + 1L)
  out[, `:=`(median = m, n = n)]
  out[]
}
