# The heal table of a tuning study (SPEC 6): which library parameter sets
# remove the violations found under the reference set, and what each set
# costs elsewhere. A test under set s is "the same test" as one under the
# reference when it has the same guideline and every parameter but
# param_set (a_params and b_params included). Guidelines that compare
# parameter sets (a side fixes param_set) are left out.

HEAL_STATUS <- c("removed", "no longer significant", "kept", "not measured", "added")

# tt: the test table (with decision, decisions.R); reference: the reference
# set; sets: the other sets, in order. One row per violation of the
# reference with each set measured in its context (library, deployment),
# status removed (the same test holds under the set: no violation of that
# size fits its data), no longer significant (it is open under the set:
# neither violated nor shown to hold -- a ratio of 1.18 at p = 0.0019 is
# not a removal), kept (it is violated), not measured (the set has no such
# test); and one row per violation under a set whose test is not violated,
# or not measured, under the reference: status added. ratio and p_value
# are the test's under the set, ref_ratio and ref_p_value under the
# reference.
heal_table <- function(tt, params, reference, sets = setdiff(unique(na.omit(tt$param_set)), reference)) {
  key <- c("guideline_no", setdiff(params, "param_set"), "a_params", "b_params")
  if (!"decision" %in% names(tt)) tt <- copy(tt)[, decision := fifelse(violated, "violated", "open")]
  keep <- c(key, "tag", "guideline", "relation", "varied", "ratio", "p_value", "violated", "decision")
  x <- if (length(sets)) tt[!is.na(param_set)] else tt[0]   # one set: the same table, without rows
  ref <- x[param_set == reference, keep, with = FALSE]
  setnames(ref, c("ratio", "p_value", "violated", "decision"), c("ref_ratio", "ref_p_value", "ref_violated", "ref_decision"))
  other <- x[param_set %in% sets, c(keep, "param_set"), with = FALSE]
  present <- unique(other[, .(library, deployment, param_set)])
  # Every violation of the reference, with every set measured in its context.
  fixed <- ref[ref_violated == TRUE][present, on = c("library", "deployment"), nomatch = NULL,
                                     allow.cartesian = TRUE]
  fixed[other, on = c(key, "param_set"), `:=`(ratio = i.ratio, p_value = i.p_value, violated = i.violated,
                                              decision = i.decision)]
  fixed[, status := fifelse(is.na(violated), "not measured",
                            fifelse(violated, "kept", fifelse(decision %in% "holds", "removed", "no longer significant")))]
  # Violations a set brings that the reference does not have.
  added <- other[violated == TRUE]
  added[ref, on = key, `:=`(ref_ratio = i.ref_ratio, ref_p_value = i.ref_p_value, ref_violated = i.ref_violated)]
  added <- added[is.na(ref_violated) | !ref_violated][, status := "added"]
  out <- rbind(fixed, added, fill = TRUE)
  out[, reference := rep(reference, .N)]
  out[, rank := match(param_set, sets) * 10L + match(status, HEAL_STATUS)]
  setorder(out, rank, guideline_no, -ref_ratio, -ratio, na.last = TRUE)
  cols <- c("reference", "param_set", "status", "guideline_no", "tag", "guideline", "relation", "varied",
            setdiff(params, "param_set"), "a_params", "b_params", "ref_ratio", "ref_p_value", "ratio", "p_value")
  out[, cols, with = FALSE]
}

# One row per set and context (library, deployment): the reference's
# violations there, how many the set removes (holds), leaves open (no
# longer significant), keeps or does not measure,
# the violations it adds, and the cross-set comparison (set_comparison_table):
# cells compared, significantly slower, significantly faster, and the
# largest and smallest ratio median(set) / median(reference).
heal_summary <- function(heal, comparison, reference, sets) {
  by <- c("param_set", "library", "deployment", "nprocs")
  h <- heal[, .(ref_violations = sum(status != "added"), removed = sum(status == "removed"),
                no_longer_significant = sum(status == "no longer significant"),
                kept = sum(status == "kept"), not_measured = sum(status == "not measured"),
                added = sum(status == "added")), by = by]
  c <- comparison[, .(cells = .N, cells_slower = sum(slower), cells_faster = sum(faster),
                      max_ratio = if (.N) max(ratio) else NA_real_, min_ratio = if (.N) min(ratio) else NA_real_),
                  by = by]
  s <- merge(c, h, by = by, all = TRUE)
  for (col in c("ref_violations", "removed", "no_longer_significant", "kept", "not_measured", "added", "cells",
                "cells_slower", "cells_faster")) {
    set(s, i = which(is.na(s[[col]])), j = col, value = 0L)
  }
  s[, reference := rep(reference, .N)]
  s[, rank := match(param_set, sets)]
  setorder(s, rank, library, nprocs, deployment, na.last = TRUE)
  s[, .(reference, param_set, library, deployment, nprocs, ref_violations, removed, no_longer_significant, kept,
        not_measured, added,
        cells, cells_slower, cells_faster, max_ratio, min_ratio)]
}
