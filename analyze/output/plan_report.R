# The report's section on where the next hour of machine time goes
# (plan_repetitions): per guideline and context, the launches' share of a
# test's variance, the interval now, and what more runs or more rounds
# would give. Nothing without two-level tests.

plan_blocks <- function(plan) {
  if (is.null(plan) || !nrow(plan)) return(list())
  shown <- head(plan[order(-half_width)], REPORT_ROWS)
  launches <- plan[, sum(grepl("^more launches", advice))]
  rounds <- plan[, sum(grepl("^more rounds", advice))]
  done <- plan[, sum(grepl("^already", advice))]
  x <- shown[, .(guideline = tagged(tag, guideline), context = context_text(shown, c("library", "deployment")),
                 tests, `runs x rounds` = sprintf("%d x %d", runs, rounds),
                 `launch share` = ifelse(is.na(launch_share), "", sprintf("%.0f %%", 100 * launch_share)),
                 `interval now` = sprintf("+/-%.2g %%", 100 * half_width), advice)]
  list(heading("Where the next hour goes"),
       paragraph(sprintf(paste(
         "The run (a launch) is the unit that repeats; its rounds sharpen its own estimate. From the variance",
         "components of each guideline's two-level tests (median over its tests: the launches' share, the rounds'),",
         "the width its intervals have now and what would bring them to +/-%.3g %% (the hold ratio: two equal",
         "sides then hold): more launches at the same rounds, or more rounds of the same size (blocks and nrep",
         "together) at the same launches -- which cannot get below the launches' own variance -- and the rounds a",
         "run at which a unit of variance costs least (Kalibera & Jones 2013), with this machine's measured seconds",
         "per launch and per round. More launches: %d, more rounds: %d, already within it: %d (of %d; `plan.csv`,",
         "`nbhbench plan ANALYSIS --target R`)."),
         100 * plan$target[1], launches, rounds, done, nrow(plan))),
       table_block(x))
}
