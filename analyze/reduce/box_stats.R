# Five numbers per group for a box plot drawn from the analysis, not by
# ggplot: ymin and ymax are the smallest and largest value (for values that
# passed the Tukey filter: the whiskers reach every kept value), lower and
# upper the quartiles (type 7), middle the median.

box_stats <- function(dt, value = "seconds", by = "id") {
  sg <- sorted_groups(dt, value, by)
  x <- sg$x
  out <- rows_of(dt[, by, with = FALSE], sg$row[sg$start + 1L])
  out[, `:=`(ymin = x[sg$start + 1L], lower = quantile7_sorted(x, sg$start, sg$n, 0.25),
             middle = quantile7_sorted(x, sg$start, sg$n, 0.5),
             upper = quantile7_sorted(x, sg$start, sg$n, 0.75), ymax = x[sg$start + sg$n], n = sg$n)]
  out[]
}
