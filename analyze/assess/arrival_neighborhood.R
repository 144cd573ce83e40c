# AR2 (SPEC 8.2): with one late process, every process that is neither its
# source nor its destination completes as without delay; the delay stays in
# the neighborhood, as the semantics of a neighborhood collective allow. A
# library that falls back to a global algorithm, or synchronises, makes
# everyone wait for the late process.
#
#   others(arrival=one_late) <= others(arrival=none)
#
# For every pair of cells (a with one late process, b its partner without
# delay, matched as any sides are) the processes of a whose role is `other`
# in results/RUN.ranks.csv (neither the late process nor one of its
# sources or destinations) are compared: per run r
#   a(r) = the largest of their median times in a (common start to completion),
#   b(r) = the largest of the same processes' in b, plus d/2,
# and the usual one-sided rank-sum test of the a(r) against the b(r), with
# the ratio of their medians (assess_guideline). "As without delay" is
# "less than half the delay later": a process the delay reaches waits for
# the late process, which arrives d after the start, so it completes about
# d later than without delay; one it does not reach varies by what the
# machine does, which on oversubscribed or loaded runs is far more than
# its time without delay (a ratio threshold on that time alone would flag
# the scheduler) but, with d well above it, far less than d/2. A cell
# where every process is the late one's neighbor (Full, a small grid) has
# no test.
#
# Also the extra time every process of a one_late cell takes over its time
# without delay (arrival_extra_times): the report's table and pictures.

# Tests as assess_guideline returns them; a_cell and b_cell are the real
# cells, median_a and median_b the medians of the a(r) and b(r) (b with d/2).
assess_others_guideline <- function(guideline, cells, ranks, params, p_thres = 0.001, v_thres = 1.03,
                                    pairs = NULL, method = "study", run_of_unit = NULL, level = 0.95) {
  what <- sprintf("%s: guideline '%s'", guideline$where %||% "assessment", guideline$text %||% "")
  pairs <- copy(pairs %||% match_sides(cells, guideline$a, guideline$b, params, what))
  if (!nrow(pairs)) return(no_tests())
  check_computed_side(guideline, pairs, NULL, cells, ranks)
  # The processes outside the late process's neighborhood, per run: with
  # reorder = 1 each run's topology may place them differently.
  others <- ranks[role == "other", .(cell, run, rank)]
  alone <- sum(!pairs$a_cell %in% others$cell)
  if (alone) {
    nbh_warning(what, ": ", alone, " of ", nrow(pairs), " cells of side a have no process outside the late ",
                "process's neighborhood; they are not tested")
  }
  pairs <- pairs[a_cell %in% others$cell]
  n <- max(cells$cell)
  pairs[, `:=`(va = n + .I, vb = n + nrow(pairs) + .I)]
  compared <- others[pairs, on = c(cell = "a_cell"), allow.cartesian = TRUE, nomatch = NULL,
                     .(a_cell = x.cell, b_cell = i.b_cell, va = i.va, vb = i.vb, run = x.run, rank = x.rank)]
  compared[, processes := .N, by = .(va, run)]
  # The slowest of the compared processes per run; a run whose b lacks one
  # of them (or has no time for it) compares nothing.
  slowest <- function(x) {
    x[is.finite(seconds), .(median = max(seconds), n = .N, processes = processes[1]), by = .(cell, run)][
      n == processes, .(cell, run, median)]
  }
  a_side <- ranks[compared, on = c(cell = "a_cell", "run", "rank"), nomatch = NULL,
                  .(cell = i.va, run = x.run, seconds = x.seconds, processes = i.processes)]
  b_side <- ranks[compared, on = c(cell = "b_cell", "run", "rank"), nomatch = NULL,
                  .(cell = i.vb, run = x.run, seconds = x.seconds, processes = i.processes)]
  b_values <- slowest(b_side)
  half_delay <- pairs[, .(cell = vb, half = cells$arrival_us[a_cell] * 1e-6 / 2)]
  b_values[half_delay, on = "cell", median := median + i.half]
  values <- rbind(slowest(a_side), b_values)
  setkeyv(values, c("cell", "run"))
  extended <- rbind(cells, cells[pairs$a_cell][, cell := pairs$va], cells[pairs$b_cell][, cell := pairs$vb])
  tests <- assess_guideline(guideline, extended, values, params, p_thres, v_thres,
                            pairs = pairs[, .(a_cell = va, b_cell = vb)], method = method,
                            run_of_unit = run_of_unit, level = level)
  tests[pairs, on = c(a_cell = "va"), a_cell := i.a_cell]
  tests[pairs, on = c(b_cell = "vb"), b_cell := i.b_cell]
  tests[]
}

# Per process of every one_late cell with a partner without delay (the same
# parameters, arrival none): data.table(cell, baseline_cell, rank, role,
# seconds, baseline_seconds, extra_seconds, delay_seconds), each a median
# over runs of the process's median (RUN.ranks.csv); extra = seconds -
# baseline_seconds. Empty without such cells.
arrival_extra_times <- function(cells, ranks, params) {
  none <- data.table(cell = integer(), baseline_cell = integer(), rank = integer(), role = character(),
                     seconds = numeric(), baseline_seconds = numeric(), extra_seconds = numeric(),
                     delay_seconds = numeric())
  if (!nrow(ranks) || !"one_late" %chin% cells$arrival || !"none" %chin% cells$arrival) return(none)
  late <- cells[arrival %chin% "one_late" & cell %in% ranks$cell]
  base <- cells[arrival %chin% "none" & cell %in% ranks$cell]
  if (!nrow(late) || !nrow(base)) return(none)
  pairs <- match_sides(rbind(late, base), c(arrival = "one_late"), c(arrival = "none"), params,
                       "the arrival table (one_late against none)")
  if (!nrow(pairs)) return(none)
  per <- ranks[cell %in% c(pairs$a_cell, pairs$b_cell),
               .(seconds = median(seconds), delay_seconds = median(delay_seconds), role = role[1]),
               keyby = .(cell, rank)]
  x <- per[pairs, on = c(cell = "a_cell"), nomatch = NULL,
           .(cell = x.cell, baseline_cell = i.b_cell, rank, role, seconds, delay_seconds)]
  x[per, on = c(baseline_cell = "cell", "rank"), baseline_seconds := i.seconds]
  x[, extra_seconds := seconds - baseline_seconds]
  setcolorder(x, names(none))
  setkeyv(x, c("cell", "rank"))
  x[]
}
