# The report's decisions (SPEC 7.5; analyze/assess/decisions.R), placed
# after the verdict: how many tests are violated, hold and are open; for an
# adaptive campaign the section "Adaptive rounds": the rules that spent the
# errors over its looks and the errors they keep, what its estimates are,
# the runs it spent against the fixed design of nrun_max runs, per
# guideline the round from which each test had its final decision, and
# the tests whose verdict flipped between violated and holds.

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

# The p threshold in the report's header: "0.001", or for an adaptive
# campaign "each test's look threshold (p_look: ... spending of 0.001)".
look_p_text <- function(result) {
  if (!isTRUE(result$looks$adaptive)) return(format(result$p_thres))
  sprintf("its look's nominal p (tests.csv p_look: %s spending of %s over each test's looks)",
          spending_rule_text(result$looks$rule), format(result$p_thres))
}

# The interval's level in the report's header: "95%", or for an adaptive
# campaign "look's (tests.csv ci_level_look: ...)".
look_level_text <- function(result) {
  level <- paste0(format(100 * (result$ci_level %||% 0.95)), "%")
  if (!isTRUE(result$looks$adaptive)) return(level)
  sprintf("look's (tests.csv ci_level_look: %s spending of the %s interval's error over each test's looks)",
          spending_rule_text(result$looks$hold_rule), level)
}

# A spending rule in words: "O'Brien-Fleming-type".
spending_rule_text <- function(rule) {
  switch(rule, "obrien-fleming" = "O'Brien-Fleming-type", "pocock" = "Pocock-type", rule)
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
  range_text <- function(x, digits) {
    x <- range(signif(x, digits))
    if (x[1] == x[2]) format(x[1]) else paste(format(x[1]), "to", format(x[2]))
  }
  blocks <- list(
    heading("Adaptive rounds"),
    bullets(c(
      sprintf(paste("plan: a first round of %d runs, then rounds of %d runs holding only the experiments that open",
                    "tests need, up to %d runs per deployment and parameter set: at most %d looks; state: %s"),
              as.integer(plan$nrun), as.integer(plan$nrun_step), as.integer(plan$nrun_max), looks$looks,
              plan$state %||% "unknown"),
      sprintf(paste("error across looks: Lan-DeMets error spending on each test's information, its runs (paired: the",
                    "runs both sides were measured in; else its side with fewer) / nrun_max %d, looks that gave it no",
                    "new run not counted. **Violated**: p at or below its look's nominal p, the boundary of %s",
                    "spending of p_thres %s (here %s), so that over all its looks a test without a difference is",
                    "falsely violated with probability at most %s.%s **Holds**: the upper bound of its ratio's",
                    "interval at its look's level (%s spending of the interval's one-sided %s: here %s %%) below the",
                    "hold ratio, so that over all its looks a test whose true ratio is at or above the hold ratio",
                    "falsely holds with probability at most %s. Each test's thresholds at its last look are",
                    "tests.csv's p_look and ci_level_look; the boundaries are those of normal statistics, applied to",
                    "each look's own p-value: the two-level t test over the runs, or an exact rank test (method",
                    "rounds; sides measured in different runs) (docs/analyze.md, adaptive campaigns)"),
              as.integer(looks$nrun_max), spending_rule_text(looks$rule), format(looks$p_thres),
              range_text(tt$p_look, 3), format(looks$p_thres),
              if (identical(result$adjust, "holm")) sprintf(paste(" With --adjust holm at each look the chance of",
                "any false violation among all tests and looks is at most %s."), format(looks$p_thres)) else "",
              spending_rule_text(looks$hold_rule), format(looks$hold_error), range_text(100 * tt$ci_level_look, 4),
              format(looks$hold_error)),
      paste("estimates: a test's ratio, interval and p are those of its last look, on the runs it had then: the",
            "interval at that look's level (ci_level_look, wider than the", paste0(format(100 * looks$ci_level), " %"),
            "of a fixed design), the ratio not corrected for the stopping (a test stopped early as violated",
            "tends to show a larger ratio than its true one)"),
      sprintf("rounds run: %d; runs spent: %d of the %d of the fixed design of nrun_max runs (%s); experiment runs (one experiment in one run, what a run's time grows with): %d of %d (%s)",
              rounds, runs, fixed, pct(runs, fixed), work, fixed_work, pct(work, fixed_work)))),
    table_block(spent[, .(context = context_text(spent, c("library", "param_set", "deployment")), rounds, runs,
                          `fixed design runs` = fixed_runs, `experiment runs` = experiment_runs,
                          `fixed design experiment runs` = fixed_experiment_runs,
                          spent = mapply(pct, experiment_runs, fixed_experiment_runs))]))
  blocks <- c(blocks, list(paragraph("Tests decided from each look on (`decided_round`: the round from whose look on ",
                                     "a test had its final decision; a look assesses the runs of the rounds so far ",
                                     "with each test's thresholds then; the last look is the analysis above):"),
                           table_block(decided_by_round(result, tt, rounds))))
  replayed <- "look_decisions" %in% names(tt)
  flipped <- if (replayed) tt[flipped %in% TRUE] else tt[0L]
  if (nrow(flipped)) {
    shown <- head(flipped, 20L)
    blocks <- c(blocks, list(paragraph(sprintf(paste(
      "**%d tests flipped** between violated and holds from one look to another (`look_decisions` in tests.csv:",
      "each look's decision); their verdict is that of the last look, decided from the round given%s:"),
      nrow(flipped), if (nrow(flipped) > nrow(shown)) sprintf("; the first %d", nrow(shown)) else "")),
      table_block(shown[, .(guideline = tagged(tag, guideline), a = a_params, b = b_params,
                            context = context_text(shown, c("library", "param_set", "deployment")),
                            looks = look_decisions, decision, `decided round` = decided_round)])))
  }
  late <- if (replayed) tt[decision == "open" & grepl("violated|holds", look_decisions), .N] else 0L
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

# Per guideline: its tests, how many had their final decision from the
# look after round r on, and those whose final decision is open.
decided_by_round <- function(result, tt, rounds) {
  x <- tt[, .(guideline = tagged(tag[1], guideline[1]), tests = .N), keyby = guideline_no]
  for (r in seq_len(rounds)) {
    counts <- tt[decided_round == r, .N, keyby = guideline_no]
    x[counts, on = "guideline_no", (paste("round", r)) := i.N]
    set(x, i = which(is.na(x[[paste("round", r)]])), j = paste("round", r), value = 0L)
  }
  open <- tt[is.na(decided_round), .N, keyby = guideline_no]
  x[open, on = "guideline_no", `open at the end` := i.N]
  x[is.na(`open at the end`), `open at the end` := 0L]
  x[, guideline_no := NULL][]
}

# Puts SECTION after the verdict (before the study's table).
with_decision_blocks <- function(blocks, section) {
  at <- which(vapply(blocks, function(b) identical(b$kind, "heading") && identical(b$level, 2L) &&
                       startsWith(b$text, "Violations per guideline"), logical(1)))
  append(blocks, section, after = if (length(at)) at[1] - 1L else length(blocks))
}
