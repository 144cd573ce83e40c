# What the regression overview plot draws (plots/regression_plot.R): per
# context (library and parameter set of each side, deployment), the ratio
# new/baseline of every tested cell with a message size against msize, one
# panel per op, one line per combination of the other parameters, the
# ratio's confidence interval as a bar, the verdict as the point's colour.
# Returns list(plots = one row per plot: plot, file, title, caption; data =
# the rows to draw, by plot), as overview_data does.

regression_plot_data <- function(table, params) {
  rows <- table[!is.na(ratio) & !is.na(msize)]
  if (!nrow(rows)) return(list(plots = data.table(), data = data.table()))
  rows <- copy(rows)
  rows[, context := sprintf("%s %s vs baseline %s %s, %s (%s processes)", library, param_set, library_baseline,
                            param_set_baseline, deployment, nprocs)]
  rows[, plot := .GRP, by = context]
  others <- setdiff(params, c(RUN_PARAMETERS, "op", "msize"))
  rows[, line := do.call(paste, c(lapply(others, function(p) fcoalesce(as.character(rows[[p]]), "")), sep = " "))]
  plots <- rows[, .(context = context[1], cells = .N, slower = sum(verdict == "slower"),
                    faster = sum(verdict == "faster")), keyby = plot]
  plots[, file := sprintf("regression-%02d", plot)]
  plots[, title := paste("new / baseline:", context)]
  plots[, caption := sprintf(paste("%d cells with a message size, %d slower, %d faster; ratio of the medians of run",
                                   "medians with its confidence interval; one line per combination of the other",
                                   "parameters; all cells in regressions.csv"), cells, slower, faster)]
  data <- rows[, .(plot, op, msize, line, ratio, low = ratio_ci_low, high = ratio_ci_high, verdict)]
  setorder(data, plot, op, line, msize)
  list(plots = plots, data = data)
}
