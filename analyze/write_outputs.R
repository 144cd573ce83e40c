# Writes an analysis into DIR: summary.csv, violations.csv, tests.csv,
# warnings.txt, plots/ (PNG and PDF) and report.md / report.html.
# DIR must be new, empty, or an earlier analysis (it has the marker file
# .nbhbench-analysis), whose outputs are replaced; nothing else is deleted.

MARKER <- ".nbhbench-analysis"
OUTPUT_FILES <- c("summary.csv", "violations.csv", "tests.csv", "warnings.txt", "report.md", "report.html")

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
  overview <- focus <- data.table()
  settings$left_out <- 0L
  if (isTRUE(settings$plots)) {
    vt <- violation_table(tt)
    groups <- unique(vt[order(-ratio), .(guideline_no, group)])
    limit <- if (is.null(settings$max_plots)) Inf else settings$max_plots
    settings$left_out <- max(nrow(groups) - limit, 0) + max(nrow(vt) - limit, 0)
    groups <- head(groups, limit)
    setorder(groups, guideline_no, group)
    overview <- render_plots(overview_data(tt, groups, params), overview_plot, dir)
    chosen <- head(vt[order(-ratio)], limit)
    setorder(chosen, guideline_no, group, test)
    focus <- render_plots(focus_data(result, chosen), focus_plot, dir)
    if (nrow(overview)) tt[overview, on = c("guideline_no", "group"), overview_plot := i.png]
    if (nrow(focus)) tt[focus, on = c("guideline_no", "test"), focus_plot := i.png]
  }
  cols <- csv_columns(tt, params)
  write_csv(tt[, cols, with = FALSE], file.path(dir, "tests.csv"))
  write_csv(violation_table(tt)[, cols, with = FALSE], file.path(dir, "violations.csv"))
  writeLines(warnings, file.path(dir, "warnings.txt"))
  blocks <- build_report(result, tt, summary, overview, focus, warnings, settings)
  writeLines(to_markdown(blocks), file.path(dir, "report.md"))
  writeLines(to_html(blocks, "nbhbench analysis", dir), file.path(dir, "report.html"))
  list(tests = tt, summary = summary, overview = overview, focus = focus)
}
