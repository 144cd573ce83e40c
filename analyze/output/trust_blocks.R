# The report's blocks on how far its verdicts can be trusted (SPEC 7.4):
# banners at the top (guidelines that cannot detect a violation with so
# few runs; runs left out because their processes did not land as asked;
# runs with more processes than cores), what chance alone would give, and
# whether reorder = 1 renumbered any process (beside GL3 and GL12).

# "1.31-1.55": a ratio's confidence interval, for the report's tables.
ci_text <- function(low, high) {
  ifelse(is.na(low) | is.na(high), "", sprintf("%.3f\u2013%.3f", low, high))
}

# Banners: each a bold first word and what it means, only when it applies.
# An archive whose files differ from its manifest (verify_manifest) is said
# first: the numbers below may not be what was measured.
changed_archive_blocks <- function(archives) {
  changed <- Filter(function(a) grepl("do not match MANIFEST.sha256", a$manifest %||% ""), archives)
  lapply(changed, function(a) paragraph(
    "**Archive changed after archiving.** `", a$name, "`: ", a$manifest, ". What those files hold may not be ",
    "what was measured; `nbhbench archive --verify ", a$dir, "` names every difference."))
}

trust_banner_blocks <- function(result, summary, tt = test_table(result)) {
  blocks <- changed_archive_blocks(result$archives)
  blind <- summary[power == "cannot detect"]
  if (nrow(blind)) {
    key <- c("guideline_no", RUN_PARAMETERS)
    tt <- tt[blind[, key, with = FALSE], on = key, nomatch = NULL]
    what <- unique(tagged(blind$tag, blind$guideline))
    over_runs <- tt[method %in% c("paired", "launches")]
    rounds <- tt[method == "rounds"]
    ranked <- tt[!method %in% c("paired", "launches", "rounds")]
    why <- character()
    if (nrow(over_runs)) {
      why <- c(why, paste("a test across launches (the run is the unit that repeats) needs two runs at least, one",
                          "degree of freedom, and these have one: rounds within one launch cannot show what another",
                          "launch would give; a campaign needs nrun >= 2, and far more to decide small differences",
                          "(`nbhbench plan` says how many)"))
    }
    if (nrow(rounds)) {
      pairs <- sort(unique(rounds$pairs))
      why <- c(why, sprintf(paste("the pooled test of n round units gives at best p = 2^-n (%s): nrun x blocks >= %d",
                                  "units"), format_list(sprintf("n = %d: %.3g", pairs, 0.5^pairs), 4L),
                            ceiling(-log2(result$p_thres))))
    }
    if (nrow(ranked)) {
      runs <- sort(unique(unlist(ranked[, .(runs_a, runs_b)])))
      why <- c(why, sprintf(paste("with %s run medians a side the one-sided rank-sum test gives at best p = 1 / C(2n, n)",
                                  "(%s)%s: nrun >= %d"), format_list(runs, 4L),
                            format_list(sprintf("n = %d: %.3g", runs, min_attainable_p(runs, runs)), 4L),
                            if (identical(result$adjust, "holm")) ", times the number of tests with --adjust holm" else "",
                            runs_needed(result$p_thres)))
    }
    blocks <- c(blocks, list(paragraph(sprintf(paste(
      "**Cannot detect.** %d of %d guidelines in a context (summary.csv, `power`) cannot show a violation at",
      "p <= %s whatever the ratio: %s. Guidelines concerned: %s."),
      nrow(blind), sum(summary$n_tests > 0), format(result$p_thres), paste(why, collapse = "; "),
      format_list(what, 6L)))))
  }
  mismatched <- result$runs$mismatched
  if (!is.null(mismatched) && nrow(mismatched)) {
    blocks <- c(blocks, list(paragraph(sprintf(
      "**Layout.** %d of %d runs did not run as their deployment asks (runs.csv `layout-mismatch`)%s:",
      nrow(mismatched), nrow(result$runs$layout),
      if (isTRUE(result$runs$included)) "; they are assessed anyway (--include-mismatched)"
      else "; they are left out of the assessment (--include-mismatched keeps them)")),
      table_block(mismatched[, .(archive, run = run_id, deployment, `processes per host` = ranks_per_host,
                                 detail = layout_detail)])))
  }
  layout <- result$runs$layout
  crowded <- if (is.null(layout)) data.table() else layout[oversubscribed == "yes"]
  if (nrow(crowded)) {
    hosts <- crowded[, .(runs = .N, `processes per host` = paste(unique(ranks_per_host), collapse = " / "),
                         `cores per host` = paste(unique(cores_per_host), collapse = " / ")),
                     by = .(library, deployment)]
    blocks <- c(blocks, list(paragraph(sprintf(paste(
      "**Oversubscribed.** %d of %d runs had more processes than cores on a host: their processes took turns",
      "on the cores, and their times measure the operating system's scheduler as much as the library."),
      nrow(crowded), nrow(layout))), table_block(hosts)))
  }
  blocks
}

# What chance alone gives among these tests, and what the adjustment controls.
chance_text <- function(result, n_tests) {
  expected <- n_tests * result$p_thres
  sprintf(paste("Chance alone: were no guideline ever broken, about %s of these %d tests would still have p <= %s",
                "(tests x p threshold; fewer reach the ratio threshold too). %s."),
          format(signif(expected, 2)), n_tests, format(result$p_thres),
          adjust_meaning(result$adjust %||% "none", result$p_thres))
}

# Beside GL3 and GL12: per library and deployment, the reorder = 1
# experiments and how many of them the library renumbered (runs.csv
# reorder_experiments, reorder_changed; the kernel's RUN.reorder.csv).
reorder_blocks <- function(result) {
  layout <- result$runs$layout
  tags <- vapply(result$guidelines, function(g) fcoalesce(g$tag, ""), "")
  if (is.null(layout) || !any(tags %in% c("GL3", "GL12")) && !any(layout$reorder_experiments > 0, na.rm = TRUE)) {
    return(list())
  }
  r <- layout[!is.na(reorder_experiments), .(runs = .N, experiments = sum(reorder_experiments),
                                             renumbered = sum(reorder_changed)), by = .(library, deployment)]
  head <- paragraph("**Reorder** (GL3, GL12): whether `reorder = 1` let the library renumber the processes ",
                    "(the kernel compares every process's rank in the topology communicator with its rank before).")
  if (!nrow(r)) {
    return(list(head, paragraph("Not recorded: the archives come from a kernel without the reorder record.")))
  }
  r[, verdict := fifelse(renumbered == 0L, "never renumbered: reorder = 1 and 0 ran on the same ranks",
                         sprintf("renumbered in %d of %d experiment runs", renumbered, experiments))]
  list(head, table_block(r[, .(library, deployment, runs, `reorder = 1 experiment runs` = experiments,
                               renumbered, verdict)]))
}

# The report's header line on the p adjustment and the intervals.
trust_settings_text <- function(result) {
  sprintf(paste("p-values adjusted for the number of tests: %s (an `a ~ b` test counts as two, one per",
                "direction; the A/A twins are a family of their own); every ratio with its %s confidence interval",
                "(paired and launch pairs: the t interval over the runs; rounds: the signed-rank test's Walsh",
                "averages; unpaired: the rank-sum test's interval of the shift, Moses; none with one run, or with",
                "too few runs to reach the level: such a test never holds)"),
          result$adjust %||% "none", look_level_text(result))
}

# A report table x (one row per test of rows) with the ratio's interval
# after `ratio`, and the adjusted p after `p` when p-values are adjusted.
trust_columns <- function(x, rows, result) {
  x <- copy(x)
  shown <- copy(names(x))  # names(x) grows in place with set()
  ci <- adjusted <- character()
  if ("ratio_ci_low" %in% names(rows)) {
    ci <- sprintf("%s%% CI", format(100 * (result$ci_level %||% 0.95)))
    set(x, j = ci, value = ci_text(rows$ratio_ci_low, rows$ratio_ci_high))
  }
  if (!identical(result$adjust %||% "none", "none") && "p_adjusted" %in% names(rows)) {
    adjusted <- paste("p", result$adjust)
    set(x, j = adjusted, value = sprintf("%.2g", rows$p_adjusted))
  }
  order <- unlist(lapply(shown, function(col) {
    c(col, if (col == "ratio") ci, if (col == "p") adjusted)
  }))
  setcolorder(x, order)
  x[]
}
