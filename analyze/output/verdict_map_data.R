# What the report's first picture draws (plots/verdict_map.R): the whole
# verdict as one heat map, a row per guideline (assessment order) and a
# column per context, from summary.csv's counts: per library (a panel;
# "libraries compared" for a guideline that compares them) a column per
# deployment, prefixed by the parameter set where there are several; each
# cell its violated, holding and open tests (all three decisions: a cell
# of 0 violated and 8 open of 9 is no pass), their shares, and whether its
# guideline cannot detect a violation there (summary_power). Returns
# list(plots = one row: plot, file, title, subtitle, caption, rows,
# columns; data = one row per cell), as overview_data does.

verdict_map_data <- function(summary, p_thres) {
  if (!nrow(summary)) return(list(plots = data.table(), data = data.table()))
  s <- copy(summary)
  several_sets <- uniqueN(s$param_set, na.rm = TRUE) > 1L
  s[, panel := fifelse(!is.na(library), library,
                       fifelse(n_tests > 0L, "libraries compared", "no tests"))]
  s[, column := fifelse(!is.na(deployment), deployment,
                        fifelse(n_tests > 0L, "deployments compared", ""))]
  if (several_sets) s[, column := trimws(paste(fcoalesce(param_set, "sets compared"), column))]
  holds <- if ("n_holds_tests" %in% names(s)) s$n_holds_tests else rep(0L, nrow(s))
  open <- if ("n_open_tests" %in% names(s)) s$n_open_tests else s$n_tests - s$n_vio_tests
  s[, `:=`(n_holds_tests = holds, n_open_tests = open)]
  s[, `:=`(row = tagged(tag, guideline), label = sprintf("%d/%d/%d", n_vio_tests, n_holds_tests, n_open_tests),
           share = fifelse(n_tests > 0L, n_vio_tests / n_tests, NA_real_),
           open_share = fifelse(n_tests > 0L, n_open_tests / n_tests, NA_real_),
           cannot_detect = power == "cannot detect")]
  # Panels and columns in the order of the study table: library, set, processes.
  order <- s[order(is.na(library), library, param_set, nprocs, deployment, na.last = TRUE)]
  data <- s[, .(plot = 1L, row = factor(row, levels = unique(s[order(guideline_no), row])),
                panel = factor(panel, levels = unique(order$panel)),
                column = factor(column, levels = unique(order$column)),
                n_vio_tests, n_holds_tests, n_open_tests, n_tests, share, open_share, label, cannot_detect)]
  blind <- sum(data$cannot_detect)
  plots <- data.table(
    plot = 1L, file = "verdict-map",
    title = sprintf("%d of %d tests violated, %d hold, %d open, over %d guidelines", sum(s$n_vio_tests),
                    sum(s$n_tests), sum(s$n_holds_tests), sum(s$n_open_tests), uniqueN(s$guideline_no)),
    subtitle = "each cell: violated / hold / open tests of a guideline in a library and deployment",
    caption = paste0("Colour: red, the share of the cell's tests violated; where none is, green when all hold, ",
                     "greyer as more are open (grey: all open, the data decided nothing). ",
                     if (blind) sprintf(paste("Hatched: cannot detect, too few runs for any test of the cell to",
                                              "reach p <= %s (%d of %d cells)."), format(p_thres), blind, nrow(data))
                     else "No cell is short of runs (cannot detect)."),
    rows = uniqueN(data$row), columns = uniqueN(data[, .(panel, column)]))
  list(plots = plots, data = data)
}
