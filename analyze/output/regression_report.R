# The release regression's part of an analysis (analyze/assess/regression.R):
# regressions.csv, the overview plots (plots/regression_plot.R) and the
# report section, placed after the verdict of the guidelines.

# Writes regressions.csv into DIR (whole or nothing, as every file of an
# analysis); nothing without a regression.
write_regression <- function(regression, dir) {
  if (!is.null(regression)) write_table_file(regression$table, file.path(dir, "regressions.csv"))
}

# The regression's plots (plots/render_plots.R: plot_set); NULL without a regression.
regression_plot_set <- function(regression, params) {
  if (is.null(regression)) return(NULL)
  v_thres <- regression$v_thres
  plot_set(regression_plot_data(regression$table, params), function(plot, data) regression_plot(plot, data, v_thres),
           width = 10, height = 6.5)
}

# "openmpi5 default vs openmpi default, 1x4": where a row's cells come from.
regression_context <- function(rows) {
  new <- trimws(paste(fcoalesce(rows$library, ""), fcoalesce(rows$param_set, "")))
  old <- trimws(paste(fcoalesce(rows$library_baseline, ""), fcoalesce(rows$param_set_baseline, "")))
  sprintf("%s vs %s, %s", ifelse(nzchar(new), new, "-"), ifelse(nzchar(old), old, "-"), rows$deployment)
}

regression_blocks <- function(regression, plots, params, settings) {
  if (is.null(regression)) return(list())
  t <- regression$table
  count <- function(v) sum(t$verdict == v)
  names_of <- function(archives) paste0("`", vapply(archives, `[[`, "", "name"), "`", collapse = ", ")
  left_out <- if (length(regression$left_out)) {
    one <- vapply(regression$left_out, function(p) {
      values <- unique(na.omit(t[[paste0(p, "_baseline")]]))
      sprintf("`%s` (every new cell against the baseline's one %s, `%s`)", p, p, paste(values, collapse = ", "))
    }, "")
    paste("but", paste(one, collapse = " and "))
  } else {
    "(nothing left out)"
  }
  blocks <- list(
    heading("Release regression"),
    bullets(c(paste0("baseline: ", names_of(regression$baseline)),
              sprintf(paste("each cell of the new archives against the same cell of the baseline: `new <= baseline`",
                            "violated (ratio new/baseline >= %s and p <= %s, one-sided) is **slower**;",
                            "`baseline <= new` violated is **faster**"),
                      format(regression$v_thres), format(regression$p_thres)),
              regression_method_text(t),
              paste("cells matched on every analysis parameter", left_out),
              sprintf("ratio intervals: %s%%, the test's own; p-values: %s", format(100 * regression$ci_level),
                      if (identical(regression$adjust, "none")) "not adjusted" else
                        paste("adjusted over the tested cells (--adjust", regression$adjust, ")")))),
    paragraph(sprintf(paste("**%d of %d matched cells slower**, %d faster, %d no change, %d cannot detect (too few",
                            "runs to reach p <= %s), %d not measured on a side; %d cells of the new archives only,",
                            "%d of the baseline only. All in `regressions.csv`."),
                      count("slower"), sum(!t$verdict %in% c("new only", "baseline only")), count("faster"),
                      count("no change"), count("cannot detect"), format(regression$p_thres), count("not measured"),
                      count("new only"), count("baseline only"))))
  show <- function(rows) {
    rows[, .(context = regression_context(rows), parameters = shared_text(rows, params, TRUE),
             `median new (µs)` = sprintf("%.4g", median_new_us),
             `median baseline (µs)` = sprintf("%.4g", median_baseline_us),
             ratio = sprintf("%.3f [%.3f, %.3f]", ratio, ratio_ci_low, ratio_ci_high),
             `p slower` = sprintf("%.2g", p_slower), `p faster` = sprintf("%.2g", p_faster),
             runs = paste0(runs_new, "/", runs_baseline))]
  }
  for (v in c("slower", "faster")) {
    rows <- t[verdict == v]
    rows <- if (v == "slower") rows[order(-ratio)] else rows[order(ratio)]
    blocks <- c(blocks, list(heading(sprintf("%s cells", if (v == "slower") "Slower" else "Faster"), 3L)))
    blocks <- c(blocks, if (nrow(rows)) bounded_table(show(rows), paste(v, "cells"), "regressions.csv", v)
                        else list(paragraph("None.")))
  }
  one_side <- t[verdict %in% c("new only", "baseline only")]
  blocks <- c(blocks, list(heading("Cells on one side only", 3L)))
  if (nrow(one_side)) {
    shown <- one_side[, .(side = verdict, context = regression_context(one_side),
                          parameters = shared_text(one_side, params, TRUE))]
    blocks <- c(blocks, bounded_table(shown, "cells on one side only", "regressions.csv", "one-side"))
  } else {
    blocks <- c(blocks, list(paragraph("None: every cell is on both sides.")))
  }
  if (!is.null(plots) && nrow(plots)) {
    blocks <- c(blocks, lapply(seq_len(nrow(plots)), function(i) {
      figure(plots$png[i], paste0(plots$title[i], ". ", plots$caption[i]))
    }))
  } else if (!isTRUE(settings$plots)) {
    blocks <- c(blocks, list(paragraph("Plots were not drawn (--no-plots).")))
  }
  c(blocks, list(heading("Baseline provenance", 3L)),
    unlist(lapply(regression$baseline, provenance_blocks), recursive = FALSE))
}

# "tests: 30 cells paired by launch (...)": how the tested cells of T
# (regressions.csv) were tested, the most used method first.
regression_method_text <- function(t) {
  used <- t[!is.na(method), .(n = .N, pairs = if (all(is.na(pairs))) "" else
                                paste(sort(unique(na.omit(pairs))), collapse = ", ")), by = method][order(-n)]
  if (!nrow(used)) return("tests: none (no cell was measured on both sides)")
  said <- vapply(seq_len(nrow(used)), function(i) {
    switch(used$method[i],
           launches = sprintf(paste("%d cells **paired by launch** (`launches`: the releases' launches were",
                                    "interleaved in one sequence; per pair of launches the log ratio of the two",
                                    "runs' medians, one-sided t test over the %s pairs, pairs - 1 degrees of",
                                    "freedom, ratio = exp(mean) with its t interval)"), used$n[i], used$pairs[i]),
           unpaired = sprintf(paste("%d cells **unpaired** (`unpaired`: the releases' launches were not",
                                    "interleaved; exact one-sided Wilcoxon rank-sum test of the run medians, ratio",
                                    "of their medians with the Moses interval)"), used$n[i]),
           sprintf("%d cells by method `%s`", used$n[i], used$method[i]))
  }, "")
  paste("tests:", paste(said, collapse = "; "))
}

# The report's blocks with the regression section placed after the verdict
# of the guidelines (before "Violations per guideline and deployment").
with_regression_blocks <- function(blocks, section) {
  if (!length(section)) return(blocks)
  at <- which(vapply(blocks, function(b) identical(b$kind, "heading") && identical(b$level, 2L) &&
                       startsWith(b$text, "Violations per guideline"), logical(1)))
  at <- if (length(at)) at[1] - 1L else length(blocks)
  append(blocks, section, after = at)
}
