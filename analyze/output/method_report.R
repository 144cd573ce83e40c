# What the report says of the tests themselves (SPEC 7.6): which method
# decided them (paired rounds, unpaired run medians, the study's test), the
# runs and pairs behind each, and the A/A self-check's false violations
# against the nominal rate.

METHOD_TEXT <- c(
  paired = paste("paired: per round of every run, the log ratio of the two sides' Tukey medians (measured",
                 "interleaved, seconds apart); exact one-sided Wilcoxon signed-rank test over those units,",
                 "ratio = exp(Hodges-Lehmann estimate) with its distribution-free interval"),
  unpaired = paste("unpaired: the exact one-sided Wilcoxon rank-sum test of the two sides' run medians, ratio of",
                   "their medians with its bootstrap interval"),
  study = paste("study: the 2017 study's one-sided Wilcoxon rank-sum test of the run medians (as wilcox.test),",
                "ratio of their medians with its bootstrap interval"))

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
  ifelse(is.na(pairs), paste0(x$runs_a, "/", x$runs_b), sprintf("%d (%d pairs)", x$runs_a, pairs))
}

# The A/A section: per context the twin tests, how many a chance result
# made "violated", and what chance alone allows; nothing without twins.
aa_blocks <- function(result, tt) {
  s <- aa_summary(tt, result$p_thres)
  if (is.null(s)) return(list())
  total <- sum(s$violated)
  n <- sum(s$tests)
  list(heading("A/A self-check"),
       paragraph(sprintf(paste(
         "Each twin is an experiment measured a second time under its own id, interleaved with the rest",
         "(campaign.conf `aa`); guideline AA tests it against its original in both directions. Every AA",
         "violation is a false one: **%d of %d twin tests violated (%.2g %%)**, where chance alone allows at most",
         "%.2g %% (2 x p threshold: both directions), fewer still with the ratio threshold. %s"),
         total, n, 100 * total / n, 100 * s$nominal[1], aa_verdict_text(total, n, s$nominal[1]))),
       table_block(s[, .(library, param_set, deployment, `twin tests` = tests, violated,
                         rate = sprintf("%.2g %%", 100 * rate), nominal = sprintf("%.2g %%", 100 * nominal), holds,
                         open)]))
}

# What k false violations among n twin tests say against the nominal rate:
# none bounds the rate by 3 / n (the 95 % "rule of three"); some are
# compared with the nominal rate by the one-sided binomial test.
aa_verdict_text <- function(k, n, nominal) {
  if (k == 0L) {
    return(sprintf(paste("None: the false-violation rate is below %.2g %% (95 %%, 3 / n); %d twin tests would be",
                         "needed to bound it by the nominal rate."), 100 * min(1, 3 / n), ceiling(3 / nominal)))
  }
  p <- pbinom(k - 1L, n, nominal, lower.tail = FALSE)
  if (p < 0.05) {
    sprintf(paste("**More than chance allows** (binomial p = %.2g): on this machine equal sides look different",
                  "more often than the p threshold says; read the other verdicts with a false-violation rate of",
                  "about %.2g %% in mind."), p, 100 * k / n)
  } else {
    sprintf("Consistent with the nominal rate (binomial p = %.2g).", p)
  }
}
