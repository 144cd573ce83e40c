# Writes an analysis into DIR: summary.csv, violations.csv, tests.csv,
# closest.csv, heal.csv, heal_sets.csv and set_comparison.csv (with several
# library parameter sets), warnings.txt,
# overlap.csv and overlap_sets.csv (where busy work was measured),
# characterization.csv (where layouts meet contiguous data), arrival.csv
# and clock_starts.csv (arrival patterns, clock starts), graphs.csv
# (only when the archives hold graph experiments), percentiles.csv (tail
# latencies), plan.csv (where two-level tests were made: what more runs or
# rounds would give, plan_repetitions), break_even.csv (where persistent operations and their
# blocking forms were measured), plots/ (PNG, and PDF with --pdf: every
# kind drawn in one pass, plots/render_plots.R; the verdict map,
# plots/verdict-map.png, opens the report) and
# report.md / report.html; with --baseline also regressions.csv and its
# plots (analyze/output/regression_report.R); for the results history
# cells.csv, run_medians.csv and archives.csv (history_tables.R), and with
# --history the history's fragment and a report section (history_report.R).
# DIR must be new, empty, or an earlier analysis (it has the marker file
# .nbhbench-analysis), which is replaced whole; nothing else is deleted.
# The analysis appears in DIR whole or not at all (output_files.R).

# The columns of tests.csv and violations.csv, in order.
csv_columns <- function(tt, params) {
  c("guideline_no", "set", "tag", "guideline", "relation", "statistic", "method", params, "a_params", "b_params",
    "runs_a", "runs_b", "pairs", "df",
    "median_a_us", "median_b_us", "ratio", "ratio_ci_low", "ratio_ci_high", "p_value", "p_reverse", "p_adjusted",
    "var_launch", "var_round", "launch_share", "slower",
    "violated", "decision", "decided_round", "look_decisions", "p_look", "ci_level_look", "group",
    intersect(c("overview_plot", "focus_plot"), names(tt)))
}

write_csv <- function(x, file) write_table_file(x, file)

# settings: list(out, plots, max_plots, created, version); warnings: character.
write_outputs <- function(result, settings, warnings = character()) {
  with_output_directory(settings$out, function(dir) write_analysis(result, settings, warnings, dir))
}

write_analysis <- function(result, settings, warnings, dir) {
  params <- result$params$name
  # The results history's tables (25 MB at make bench's scale) are
  # written by a fork while this process makes the others and the report.
  history_written <- in_background(function() {
    write_history_tables(result, settings, dir)
    TRUE
  })
  on.exit(history_written(cancel = TRUE))
  result$shown_params <- report_params(result)   # what the report's text names; the CSV files have all
  shown <- result$shown_params
  tt <- test_table(result)
  summary <- summary_decisions(summary_power(summary_table(result, tt), tt, result$p_thres, result$adjust %||% "none"), tt)
  write_csv(summary[, !"guideline_no"], file.path(dir, "summary.csv"))
  closest <- closest_calls(tt, result$p_thres, result$v_thres)
  tuning <- tuning_tables(result, tt)
  graphs <- if (is.null(result$graphs)) data.table() else result$graphs
  if (nrow(graphs)) write_csv(graphs[, GRAPH_DESCRIPTION_COLUMNS, with = FALSE], file.path(dir, "graphs.csv"))
  settings$left_out <- 0L
  progress("writing the tables and drawing the plots of ", nrow(tt), " tests")
  drawn <- list()
  if (isTRUE(settings$plots)) {
    planned <- analysis_plot_sets(result, tt, summary, closest, settings)
    settings$left_out <- planned$left_out
    drawn <- render_plot_sets(planned$sets, dir, plot_formats(settings$pdf))
    for (o in drawn[c("overview", "closest")]) {
      if (nrow(o)) tt[o, on = c("guideline_no", "group"), overview_plot := i.png]
    }
    if (nrow(drawn$focus)) tt[drawn$focus, on = c("guideline_no", "test"), focus_plot := i.png]
    if ("overview_plot" %in% names(tt)) closest[tt, on = c("guideline_no", "test"), overview_plot := i.overview_plot]
  }
  none <- data.table()
  cols <- csv_columns(tt, params)
  write_csv(tt[, cols, with = FALSE], file.path(dir, "tests.csv"))
  write_csv(violation_table(tt)[, cols, with = FALSE], file.path(dir, "violations.csv"))
  write_csv(closest[, c(intersect(cols, names(closest)), "short_of"), with = FALSE], file.path(dir, "closest.csv"))
  if (length(result$param_sets) > 1L) {   # one set heals nothing: no empty files
    write_csv(tuning$heal, file.path(dir, "heal.csv"))
    write_csv(tuning$sets, file.path(dir, "heal_sets.csv"))
    write_csv(tuning$comparison, file.path(dir, "set_comparison.csv"))
  }
  if (nrow(result$overlap)) {
    write_csv(result$overlap[, !c("cell", "pure_cell")], file.path(dir, "overlap.csv"))
    sets <- overlap_sets(result$overlap, result$registry$operations, result$reference_set)
    if (nrow(sets)) write_csv(sets, file.path(dir, "overlap_sets.csv"))
  }
  plan <- result$plan <- plan_repetitions(tt, result$costs, result$hold_ratio %||% result$v_thres,
                                          result$ci_level %||% 0.95)
  if (nrow(plan)) write_csv(plan, file.path(dir, "plan.csv"))
  pt <- result$percentile_rows <- percentile_table(result)   # the report's tail section reads them too
  if (nrow(pt)) write_csv(pt, file.path(dir, "percentiles.csv"))
  be <- break_even_table(result)
  if (nrow(be)) write_csv(be, file.path(dir, "break_even.csv"))
  if (nrow(result$characterization %||% data.table())) {
    write_csv(result$characterization, file.path(dir, "characterization.csv"))
  }
  write_text_file(warnings, file.path(dir, "warnings.txt"))
  if (!is.null(settings$history)) history_written()   # the history (--history) reads its tables
  history <- history_fragment(settings, dir)
  write_regression(result$regression, dir)
  write_arrival(result, dir)
  regression_plots <- if (is.null(result$regression)) NULL else drawn$regression %||% none
  plots <- list(overview = drawn$overview %||% none, focus = drawn$focus %||% none,
                closest = drawn$closest %||% none, overlap = drawn$overlap %||% none,
                heatmaps = drawn$heatmaps %||% none, verdict = drawn$verdict %||% none,
                characterization = drawn$characterization %||% none, arrival = drawn$arrival %||% none)
  progress("writing the report")
  blocks <- build_report(result, tt, summary, plots, warnings, settings, closest, tuning)
  blocks <- with_regression_blocks(blocks, regression_blocks(result$regression, regression_plots, shown, settings))
  blocks <- with_history_blocks(blocks, history_blocks(history))
  write_text_file(to_markdown(blocks), file.path(dir, "report.md"))
  write_text_file(to_html(blocks, "nbhbench analysis", dir), file.path(dir, "report.html"))
  history_written()
  list(tests = tt, summary = summary, overview = plots$overview, focus = plots$focus, closest = closest,
       closest_plots = plots$closest, heal = tuning$heal, heal_sets = tuning$sets, set_comparison = tuning$comparison,
       regression = result$regression$table, regression_plots = regression_plots,
       history_changes = history_change_lines(history), history_refused = history_refusal(history))
}

# Every plot of the analysis (plots/render_plot_sets), as list(sets, left_out):
# sets, a named list of plot_set, every kind in one pass, the focus plots
# (the slowest to draw) first; left_out, how many --max-plots left out.
analysis_plot_sets <- function(result, tt, summary, closest, settings) {
  params <- result$params$name
  shown <- result$shown_params %||% params
  vt <- violation_table(tt)
  groups <- unique(vt[order(-ratio), .(guideline_no, group)])
  calls <- closest_call_plots(tt, closest)
  limit <- if (is.null(settings$max_plots)) Inf else settings$max_plots
  left_out <- max(nrow(groups) - limit, 0) + max(nrow(vt) - limit, 0) + max(nrow(calls) - limit, 0)
  groups <- head(groups, limit)
  setorder(groups, guideline_no, group)
  # A computed side (GL16) has no raw times of its own to box.
  chosen <- head(vt[computed == FALSE][order(-ratio)], limit)
  setorder(chosen, guideline_no, group, test)
  calls <- head(calls, limit)
  setorder(calls, guideline_no, group)
  graphs <- if (is.null(result$graphs)) data.table() else result$graphs
  sets <- list(
    focus = plot_set(focus_data(result, chosen), focus_plot),
    overview = plot_set(overview_data(tt, groups, shown), overview_plot),
    closest = plot_set(overview_data(tt, calls, shown, closest = TRUE), overview_plot),
    heatmaps = plot_set(graph_volume_data(graphs), graph_heatmap, width = 6, height = 5),
    overlap = plot_set(overlap_plot_data(result$overlap, result$registry$operations, params), overlap_plot,
                       height = 6),
    characterization = plot_set(characterization_plot_data(result$characterization %||% data.table(), params,
                                                            result$registry$layouts),
                                characterization_plot, height = 6),
    verdict = verdict_map_set(verdict_map_data(summary, result$p_thres)),
    regression = regression_plot_set(result$regression, params),
    arrival = arrival_plot_set(result, settings))
  list(sets = Filter(Negate(is.null), sets), left_out = left_out)
}

# The tables of a tuning study: heal (heal_table), sets (heal_summary) and
# comparison (set_comparison_table); without rows when there is one set.
tuning_tables <- function(result, tt) {
  params <- result$params$name
  others <- setdiff(result$param_sets, result$reference_set)
  comparison <- set_comparison_table(result$set_comparison, result$frame$cells, params)
  heal <- heal_table(tt, params, result$reference_set, others)
  list(heal = heal, sets = heal_summary(heal, comparison, result$reference_set, others), comparison = comparison,
       reference = result$reference_set)
}
