# Closest calls: the tests that came nearest to a violation without being
# one, so that a report without violations still shows how far each
# guideline is from one.

# Per guideline and context (library, param_set, deployment), the test
# that is not violated with the largest ratio (ties: the smaller p); rows
# of the test table, plus short_of: what kept it from being violated,
# "ratio" (below v_thres, or the guideline's own threshold: column v_thres
# of the test table), "p" (above p_thres) or "ratio and p".
closest_calls <- function(tt, p_thres, v_thres) {
  x <- tt[violated == FALSE]
  setorderv(x, c("guideline_no", RUN_PARAMETERS, "ratio", "p_value", "test"), c(1L, 1L, 1L, 1L, 1L, -1L, 1L, 1L),
            na.last = TRUE)
  x <- unique(x, by = c("guideline_no", RUN_PARAMETERS))
  if ("v_thres" %in% names(x)) v_thres <- fcoalesce(x$v_thres, v_thres)
  ratio_ok <- violates(x$ratio, 0, p_thres, v_thres)
  p_ok <- violates(Inf, x[[if ("p_adjusted" %in% names(x)) "p_adjusted" else "p_value"]], p_thres, v_thres)
  x[, short_of := fifelse(!ratio_ok & !p_ok, "ratio and p", fifelse(!ratio_ok, "ratio", "p"))]
  x[]
}

# The closest calls worth a plot: per guideline, library and deployment
# without any violated test, the closest call of the largest ratio (over
# the parameter sets). data.table(guideline_no, group, test), largest
# ratio first.
closest_call_plots <- function(tt, closest) {
  by <- c("guideline_no", "library", "deployment")
  violated <- unique(tt[violated == TRUE, by, with = FALSE])
  x <- closest[!violated, on = by]
  x <- x[order(-ratio, p_value)]
  unique(x, by = by)[, .(guideline_no, group, test)]
}
