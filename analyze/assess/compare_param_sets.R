# Cross-set comparison of a tuning study (SPEC 6): every cell measured under
# a library parameter set s against the same cell (every parameter equal
# but param_set) under the reference set. It is the guideline
# `s <= reference` with guideline parameter param_set, checked by
# assess_guideline on the run medians: where the sets' launches were
# interleaved (LAUNCH_PAIRS), paired by launch (the two-level test over the
# pairs of launches); else the exact one-sided rank-sum test (unpaired:
# exact whatever the ties); ratio of medians of run medians; both
# thresholds. And the guideline `reference <= s` on the same pairs:
#   slower  s <= reference is violated: s is significantly slower;
#   faster  reference <= s is violated: s is significantly faster.
# An assessment can state the same comparison as a guideline
# (`parameter = param_set`, `s <= default`); its violations are the slower
# cells here.

# The reference set: `requested` (--reference-set), else `default`, else the
# first set (sets in campaign order).
reference_set <- function(sets, requested = NULL) {
  if (!is.null(requested)) {
    if (!requested %in% sets) {
      input_error("--reference-set: '", requested, "' is not a parameter set of the archives (sets: ",
                  format_list(sets, 12L), ")")
    }
    return(requested)
  }
  if ("default" %in% sets) "default" else sets[1]
}

# The guideline `a <= b` over parameter sets, as parse_assessment makes it.
param_set_guideline <- function(a, b) {
  list(set = "parameter sets", parameter = "param_set", varied = NULL, tag = NA_character_, relation = "<=",
       a = list(param_set = a), b = list(param_set = b), a_text = a, b_text = b,
       text = paste(a, "<=", b), where = "parameter sets")
}

# cells, medians, params: as for assess_guideline; sets: the sets to compare
# with the reference (default: all others, in order of appearance).
# Returns one row per compared cell: param_set, reference, set_cell,
# ref_cell, runs_set, runs_ref, median_set, median_ref (seconds), ratio
# (median_set / median_ref), p_slower (rank-sum p that the set's run
# medians lie to the right of the reference's), p_faster (the other way),
# slower, faster (violated either way).
compare_param_sets <- function(cells, medians, params, reference, p_thres = 0.001, v_thres = 1.03,
                               sets = setdiff(unique(cells$param_set), reference), launch_pairs = NULL,
                               level = 0.95) {
  out <- rbindlist(lapply(sets, function(s) {
    slower <- assess_guideline(param_set_guideline(s, reference), cells, medians, params, p_thres, v_thres,
                               method = "unpaired", launch_pairs = launch_pairs, level = level)
    if (!nrow(slower)) return(NULL)
    faster <- assess_guideline(param_set_guideline(reference, s), cells, medians, params, p_thres, v_thres,
                               pairs = slower[, .(a_cell = b_cell, b_cell = a_cell)], method = "unpaired",
                               launch_pairs = launch_pairs, level = level)
    slower[faster, on = c(a_cell = "b_cell", b_cell = "a_cell"), `:=`(p_faster = i.p_value, faster = i.violated)]
    slower[, .(param_set = s, reference = reference, set_cell = a_cell, ref_cell = b_cell, runs_set = runs_a,
               runs_ref = runs_b, median_set = median_a, median_ref = median_b, ratio, ratio_ci_low,
               ratio_ci_high, method, pairs, df, p_slower = p_value, p_faster, slower = violated, faster)]
  }))
  if (!nrow(out)) {
    out <- data.table(param_set = character(), reference = character(), set_cell = integer(),
                      ref_cell = integer(), runs_set = integer(), runs_ref = integer(), median_set = numeric(),
                      median_ref = numeric(), ratio = numeric(), ratio_ci_low = numeric(),
                      ratio_ci_high = numeric(), method = character(), pairs = integer(), df = integer(),
                      p_slower = numeric(), p_faster = numeric(),
                      slower = logical(), faster = logical())
  }
  out[]
}
