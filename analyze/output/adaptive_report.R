# The report's decisions (SPEC 7.5; analyze/assess/decisions.R), placed
# after the verdict: how many tests are violated, hold and are open; for an
# adaptive campaign the section "Adaptive rounds": the rule that spent the
# thresholds over its looks and the error it keeps, the runs it spent
# against the fixed design of nrun_max runs, and per guideline how many
# tests each look decided.

# The hold ratio in words: "1.03", with the guidelines whose own threshold
# is larger ("1.03 (GL16: 1.1)").
hold_ratio_text <- function(result) {
  own <- unlist(lapply(result$guidelines, function(g) {
    if (!is.null(g$v_thres) && g$v_thres > result$hold_ratio) setNames(g$v_thres, fcoalesce(g$tag, g$text))
  }))
  own <- own[!duplicated(names(own))]
  paste0(format(result$hold_ratio),
         if (length(own)) paste0(" (", format_list(sprintf("%s: %s", names(own), format(own)), 4L),
                                 ", their own ratio thresholds)"))
}

decision_blocks <- function(result, tt) {
  count <- function(d) sum(tt$decision == d)
  level <- format(100 * (result$ci_level %||% 0.95))
  blocks <- list(paragraph(sprintf(paste(
    "**Decided: %d violated, %d hold, %d open** (`decision` in tests.csv). A test holds when the upper bound of",
    "its ratio's %s%% interval is below the hold ratio %s (for `~`: the interval lies between its inverse and it):",
    "no violation of that size fits the runs. A test that is neither violated nor holds is open: more runs may",
    "decide it."), count("violated"), count("holds"), count("open"), level, hold_ratio_text(result))))
  looks <- result$looks
  if (is.null(looks) || !isTRUE(looks$adaptive)) return(blocks)
  c(blocks, adaptive_round_blocks(result, tt))
}

adaptive_round_blocks <- function(result, tt) {
  looks <- result$looks
  plan <- looks$plans[[1]]
  spent <- rounds_spent(result)
  pct <- function(a, b) if (b > 0) sprintf("%.0f %%", 100 * a / b) else ""
  runs <- sum(spent$runs)
  fixed <- sum(spent$fixed_runs)
  work <- sum(spent$experiment_runs)
  fixed_work <- sum(spent$fixed_experiment_runs)
  rounds <- result$rounds$rounds %||% 1L
  blocks <- list(
    heading("Adaptive rounds"),
    bullets(c(
      sprintf(paste("plan: a first round of %d runs, then rounds of %d runs holding only the experiments that open",
                    "tests need, up to %d runs per deployment and parameter set: at most %d looks; state: %s"),
              as.integer(plan$nrun), as.integer(plan$nrun_step), as.integer(plan$nrun_max), looks$looks,
              plan$state %||% "unknown"),
      sprintf(paste("error across looks (%s over the %d planned looks): each look tests at p <= %s (%s / %d) and",
                    "bounds ratios with %s%% intervals (1 - (1 - %s) / %d), so that over all its looks a test is",
                    "falsely violated with probability at most %s, and falsely holds (its true ratio at or above the",
                    "hold ratio) at most %s%s"),
              looks$rule, looks$looks, format(signif(looks$p_look, 3)), format(looks$p_thres), looks$looks,
              format(signif(100 * looks$ci_level_look, 4)), format(looks$ci_level), looks$looks,
              format(looks$p_thres), format((1 - looks$ci_level) / 2),
              if (identical(result$adjust, "holm")) sprintf("; with --adjust holm at each look, the chance of any false violation among all tests and looks is at most %s", format(looks$p_thres)) else ""),
      sprintf("rounds run: %d; runs spent: %d of the %d of the fixed design of nrun_max runs (%s); experiment runs (one experiment in one run, what a run's time grows with): %d of %d (%s)",
              rounds, runs, fixed, pct(runs, fixed), work, fixed_work, pct(work, fixed_work)))),
    table_block(spent[, .(context = context_text(spent, c("library", "param_set", "deployment")), rounds, runs,
                          `fixed design runs` = fixed_runs, `experiment runs` = experiment_runs,
                          `fixed design experiment runs` = fixed_experiment_runs,
                          spent = mapply(pct, experiment_runs, fixed_experiment_runs))]))
  blocks <- c(blocks, list(paragraph("Tests decided at each look (a look assesses the runs of the rounds so far with ",
                                     "the thresholds of one look; the last look is the analysis above):"),
                           table_block(decided_by_round(result, tt, rounds))))
  late <- tt[!is.na(decided_round) & decision == "open", .N]
  if (late) {
    blocks <- c(blocks, list(paragraph(sprintf(paste(
      "%d tests decided at an earlier look are open on all runs: their cells got more runs for other open tests,",
      "and the larger sample no longer decides them (the look that stopped measuring them was decided)."), late))))
  }
  l <- result$rounds$looks
  if (!is.null(l) && nrow(l)) {
    per_look <- l[, .(tests = sum(tests), violated = sum(violated), holds = sum(holds), open = sum(open)), keyby = round]
    blocks <- c(blocks, list(paragraph("What each look found:"), table_block(per_look)))
  }
  blocks
}

# Per guideline: its tests, how many each look decided first (round r:
# first decided at the look after round r), and those no look decided.
decided_by_round <- function(result, tt, rounds) {
  x <- tt[, .(guideline = tagged(tag[1], guideline[1]), tests = .N), keyby = guideline_no]
  for (r in seq_len(rounds)) {
    counts <- tt[decided_round == r, .N, keyby = guideline_no]
    x[counts, on = "guideline_no", (paste("round", r)) := i.N]
    set(x, i = which(is.na(x[[paste("round", r)]])), j = paste("round", r), value = 0L)
  }
  open <- tt[is.na(decided_round), .N, keyby = guideline_no]
  x[open, on = "guideline_no", `never decided` := i.N]
  x[is.na(`never decided`), `never decided` := 0L]
  x[, guideline_no := NULL][]
}

# Puts SECTION after the verdict (before the study's table).
with_decision_blocks <- function(blocks, section) {
  at <- which(vapply(blocks, function(b) identical(b$kind, "heading") && identical(b$level, 2L) &&
                       startsWith(b$text, "Violations per guideline"), logical(1)))
  append(blocks, section, after = if (length(at)) at[1] - 1L else length(blocks))
}
