# Writes an analysis into DIR: summary.csv, violations.csv, tests.csv,
# closest.csv, heal.csv, heal_sets.csv, set_comparison.csv, warnings.txt,
# overlap.csv and overlap_sets.csv (where busy work was measured), plots/
# (PNG and PDF) and report.md / report.html.
# DIR must be new, empty, or an earlier analysis (it has the marker file
# .nbhbench-analysis), whose outputs are replaced; nothing else is deleted.

MARKER <- ".nbhbench-analysis"
OUTPUT_FILES <- c("summary.csv", "violations.csv", "tests.csv", "closest.csv", "heal.csv", "heal_sets.csv",
                  "set_comparison.csv", "overlap.csv", "overlap_sets.csv", "warnings.txt", "report.md", "report.html")

prepare_output_dir <- function(dir) {
  if (file.exists(dir) && !dir.exists(dir)) output_error(dir, " exists and is not a directory")
  if (dir.exists(dir) && length(list.files(dir, all.files = TRUE, no.. = TRUE))) {
    if (!file.exists(file.path(dir, MARKER))) {
      output_error(dir, " exists and is not an nbhbench analysis; choose another --out")
    }
    unlink(file.path(dir, OUTPUT_FILES))
    unlink(list.files(file.path(dir, "plots"), pattern = "\\.(png|pdf)$", full.names = TRUE))
  }
  ok <- dir.create(dir, recursive = TRUE, showWarnings = FALSE) || dir.exists(dir)
  if (!ok || file.access(dir, 2L) != 0L) output_error(dir, ": cannot create or write the directory")
  writeLines("nbhbench analyze output; its files are replaced by the next analysis into this directory",
             file.path(dir, MARKER))
}

# The columns of tests.csv and violations.csv, in order.
csv_columns <- function(tt, params) {
  c("guideline_no", "set", "tag", "guideline", "relation", params, "a_params", "b_params", "runs_a", "runs_b",
    "median_a_us", "median_b_us", "ratio", "p_value", "slower", "violated", "group",
    intersect(c("overview_plot", "focus_plot"), names(tt)))
}

write_csv <- function(x, file) {
  tryCatch(fwrite(x, file, na = ""), error = function(e) output_error(file, ": ", conditionMessage(e)))
}

# settings: list(out, plots, max_plots, created, version); warnings: character.
write_outputs <- function(result, settings, warnings = character()) {
  dir <- settings$out
  prepare_output_dir(dir)
  params <- result$params$name
  tt <- test_table(result)
  summary <- summary_table(result, tt)
  write_csv(summary[, !"guideline_no"], file.path(dir, "summary.csv"))
  closest <- closest_calls(tt, result$p_thres, result$v_thres)
  tuning <- tuning_tables(result, tt)
  overview <- focus <- close_plots <- overlap_plots <- data.table()
  settings$left_out <- 0L
  if (isTRUE(settings$plots)) {
    vt <- violation_table(tt)
    groups <- unique(vt[order(-ratio), .(guideline_no, group)])
    calls <- closest_call_plots(tt, closest)
    limit <- if (is.null(settings$max_plots)) Inf else settings$max_plots
    settings$left_out <- max(nrow(groups) - limit, 0) + max(nrow(vt) - limit, 0) + max(nrow(calls) - limit, 0)
    groups <- head(groups, limit)
    setorder(groups, guideline_no, group)
    overview <- render_plots(overview_data(tt, groups, params), overview_plot, dir)
    # A computed side (GL16) has no raw times of its own to box.
    chosen <- head(vt[computed == FALSE][order(-ratio)], limit)
    setorder(chosen, guideline_no, group, test)
    focus <- render_plots(focus_data(result, chosen), focus_plot, dir)
    calls <- head(calls, limit)
    setorder(calls, guideline_no, group)
    close_plots <- render_plots(overview_data(tt, calls, params, closest = TRUE), overview_plot, dir)
    for (o in list(overview, close_plots)) {
      if (nrow(o)) tt[o, on = c("guideline_no", "group"), overview_plot := i.png]
    }
    if (nrow(focus)) tt[focus, on = c("guideline_no", "test"), focus_plot := i.png]
    if ("overview_plot" %in% names(tt)) closest[tt, on = c("guideline_no", "test"), overview_plot := i.overview_plot]
    overlap_plots <- render_plots(overlap_plot_data(result$overlap, result$registry$operations, params),
                                  overlap_plot, dir, height = 6)
  }
  cols <- csv_columns(tt, params)
  write_csv(tt[, cols, with = FALSE], file.path(dir, "tests.csv"))
  write_csv(violation_table(tt)[, cols, with = FALSE], file.path(dir, "violations.csv"))
  write_csv(closest[, c(intersect(cols, names(closest)), "short_of"), with = FALSE], file.path(dir, "closest.csv"))
  write_csv(tuning$heal, file.path(dir, "heal.csv"))
  write_csv(tuning$sets, file.path(dir, "heal_sets.csv"))
  write_csv(tuning$comparison, file.path(dir, "set_comparison.csv"))
  if (nrow(result$overlap)) {
    write_csv(result$overlap[, !c("cell", "pure_cell")], file.path(dir, "overlap.csv"))
    sets <- overlap_sets(result$overlap, result$registry$operations, result$reference_set)
    if (nrow(sets)) write_csv(sets, file.path(dir, "overlap_sets.csv"))
  }
  writeLines(warnings, file.path(dir, "warnings.txt"))
  plots <- list(overview = overview, focus = focus, closest = close_plots, overlap = overlap_plots)
  blocks <- build_report(result, tt, summary, plots, warnings, settings, closest, tuning)
  writeLines(to_markdown(blocks), file.path(dir, "report.md"))
  writeLines(to_html(blocks, "nbhbench analysis", dir), file.path(dir, "report.html"))
  list(tests = tt, summary = summary, overview = overview, focus = focus, closest = closest,
       closest_plots = close_plots, heal = tuning$heal, heal_sets = tuning$sets, set_comparison = tuning$comparison)
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
