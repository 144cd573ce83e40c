# What the report says of the tests themselves (SPEC 7.6): which method
# decided them (paired rounds, unpaired run medians, the study's test), the
# runs and pairs behind each, and the A/A self-check's false violations
# against the nominal rate.

METHOD_TEXT <- c(
  paired = paste("paired (two-level): per round of every run, the log ratio of the two sides' Tukey medians",
                 "(measured interleaved, seconds apart); each run's mean of them is one estimate, and the runs --",
                 "the unit that repeats -- give a one-sided t test (runs - 1 degrees of freedom), ratio = exp(mean)",
                 "with its t interval"),
  rounds = paste("rounds: every round of every run counted as an independent pair; exact one-sided Wilcoxon",
                 "signed-rank test over those units, ratio = exp(Hodges-Lehmann estimate) with its",
                 "distribution-free interval (right only where launches do not differ)"),
  launches = paste("launches: sides measured in different launches that were interleaved, paired by launch: the log",
                   "ratio of the two runs' medians in each pair of launches, one-sided t test over the pairs (pairs - 1",
                   "degrees of freedom), ratio = exp(mean) with its t interval"),
  unpaired = paste("unpaired: the exact one-sided Wilcoxon rank-sum test of the two sides' run medians, ratio of",
                   "their medians with the distribution-free interval of the same test (Moses)"),
  study = paste("study: the 2017 study's one-sided Wilcoxon rank-sum test of the run medians (as wilcox.test),",
                "ratio of their medians with the distribution-free interval of the rank-sum test (Moses)"))

# "violated iff ... (paired: ...; 3 tests unpaired: ...)": the methods of
# the tests, the most used first.
method_text <- function(result, tt) {
  used <- tt[, .N, by = method][order(-N)]
  if (!nrow(used)) used <- data.table(method = "study", N = 0L)
  described <- sprintf("%s%s", ifelse(nrow(used) > 1L, sprintf("%d tests ", used$N), ""), METHOD_TEXT[used$method])
  sprintf("violated iff ratio v >= %s and p <= %s (%s)", format(result$v_thres), look_p_text(result),
          paste(described, collapse = "; "))
}

# A report column: the runs of each side, and the units a paired test had.
runs_text <- function(x) {
  pairs <- if ("pairs" %in% names(x)) x$pairs else rep(NA_integer_, nrow(x))
  method <- if ("method" %in% names(x)) x$method else rep("study", nrow(x))
  fifelse(is.na(pairs), paste0(x$runs_a, "/", x$runs_b),
          fifelse(method == "launches", sprintf("%d launch pairs", pairs),
                  sprintf("%d (%d pairs)", x$runs_a, pairs)))
}

# The A/A section: per context the twin tests, how their p-values lie
# against the uniform distribution a test that keeps its level gives, how
# many a chance result made "violated", how many are decided; nothing
# without twins.
aa_blocks <- function(result, tt) {
  s <- aa_summary(tt, result$p_thres)
  if (is.null(s)) return(list())
  n <- sum(s$tests)
  small <- sum(s$small)
  status <- aa_status(s)
  decided <- n - sum(s$open)
  headline <- switch(status,
    fails = sprintf(paste("**The check fails**: %s. Equal sides look different more often than the p-values",
                          "say: on this machine, or under this analysis's method, the verdicts are too sure of",
                          "themselves. Read them with that in mind; with method `rounds` this is what launches that",
                          "differ do (docs/analyze.md)."), aa_failure_text(s)),
    `decided nothing` = sprintf(paste("**The check decided nothing**: all %d twin tests are open (neither violated",
                                      "nor within the hold ratio); it shows no false violation, nor that a twin and",
                                      "its original perform alike. %d of %d have a two-sided p <= 0.05 (5 %% expected)."),
                                n, small, n),
    passes = sprintf(paste("**The check passes**: %d of %d twin tests have a two-sided p <= 0.05 (5 %% expected; binomial",
                           "p = %.2g), %d violated, %d hold, %d open."),
                     small, n, pbinom(small - 1L, n, 0.05, lower.tail = FALSE), sum(s$violated), sum(s$holds),
                     sum(s$open)))
  share <- aa_detectable_share(n)
  list(heading("A/A self-check"),
       paragraph(headline),
       paragraph(sprintf(paste(
         "Each twin is an experiment measured a second time under its own id, interleaved with the rest, with its",
         "own random draws (campaign.conf `aa`); guideline AA tests it against its original in both directions, in",
         "a family of its own for `--adjust`. Under a test that keeps its level the twins' p-values are uniform:",
         "5 %% of them at or below 0.05, %.2g %% at or below the p threshold. With %d twin tests the check can tell a",
         "share of %s of small p-values from the nominal 5 %%. Every AA violation is a false one: %d of %d (%.2g %%),",
         "where chance alone allows at most %.2g %% (2 x p threshold), fewer with the ratio threshold. %d of %d",
         "twin tests are decided. %s"),
         100 * result$p_thres, n, if (is.na(share)) "(none: too few)" else sprintf("%.0f %% or more", 100 * share),
         sum(s$violated), n, 100 * sum(s$violated) / n, 100 * s$nominal[1], decided, n,
         aa_verdict_text(sum(s$violated), n, s$nominal[1]))),
       table_block(s[, .(library, param_set, deployment, `twin tests` = tests,
                         `p <= 0.05` = sprintf("%d (%.2g %%)", small, 100 * small_rate),
                         `p <= p threshold` = tiny, violated, holds, open)]))
}

# Why the A/A check of S (aa_summary) fails (aa_status): the excess of
# small p-values, of false violations, or both, each with its binomial p.
aa_failure_text <- function(s) {
  n <- sum(s$tests)
  small <- sum(s$small)
  violated <- sum(s$violated)
  p_small <- pbinom(small - 1L, n, 0.05, lower.tail = FALSE)
  p_violated <- if (violated > 0L) pbinom(violated - 1L, n, s$nominal[1], lower.tail = FALSE) else 1
  reasons <- c(
    if (p_small < 0.05) {
      sprintf("%d of %d twin tests have a two-sided p <= 0.05 where 5 %% (%.1f) are expected (binomial p = %.2g)",
              small, n, 0.05 * n, p_small)
    },
    if (p_violated < 0.05) {
      sprintf("%d of %d twin tests are violated where chance allows at most %.2g %% (binomial p = %.2g)",
              violated, n, 100 * s$nominal[1], p_violated)
    })
  paste(reasons, collapse = ", and ")
}

# What k false violations among n twin tests say against the nominal rate:
# none bounds the rate by 3 / n (the 95 % "rule of three"); some are
# compared with the nominal rate by the one-sided binomial test.
aa_verdict_text <- function(k, n, nominal) {
  if (k == 0L) {
    return(sprintf(paste("No false violation: the false-violation rate is below %.2g %% (95 %%, 3 / n); %d twin tests",
                         "would be needed to bound it by the nominal rate."), 100 * min(1, 3 / n), ceiling(3 / nominal)))
  }
  p <- pbinom(k - 1L, n, nominal, lower.tail = FALSE)
  if (p < 0.05) {
    sprintf(paste("**More false violations than chance allows** (binomial p = %.2g): read the other verdicts with a",
                  "false-violation rate of about %.2g %% in mind."), p, 100 * k / n)
  } else {
    sprintf("The false violations are consistent with the nominal rate (binomial p = %.2g).", p)
  }
}
