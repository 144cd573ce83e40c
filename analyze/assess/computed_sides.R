# Guidelines with a side computed per run (SPEC 7.1 GL16, SPEC 8.2 AR1 and
# AR2):
#
#   ineighbor_alltoall,work_factor=1 <= max(ineighbor_alltoall,work_factor=0; work)
#   arrival=uniform <= plus(arrival=none; delay)
#   others(arrival=one_late) <= others(arrival=none)
#
# `max(SIDE; work)`: for every cell a of the left side, SIDE names its
# partner cell p (matched as any side is: every parameter but those the
# sides fix), and for every run r the right side's value is
#   b(r) = max(m_p(r), w_a(r)),
# the larger of p's run median and the run median of the busy work a's own
# repetitions measured (reduce_work).
# `plus(SIDE; delay)` (AR1): b(r) = m_p(r) + D_a(r), p's run median plus
# the run median of the delay a's own repetitions measured (per repetition
# the slowest process's, from the common start to its call: reduce_delay):
# a late arrival costs no more than its lateness. The nominal d would charge
# the library with what the node did to the late process's wait.
# The test is then the usual one: one-sided rank-sum test of a's run
# medians against the b(r), ratio of their medians (assess_guideline), with
# the guideline's own threshold (registry/guidelines.csv v_thres: 1.10 for
# GL16 and AR1).
# `others(SIDE) <= others(SIDE)` (AR2) compares processes rather than
# operations: arrival_neighborhood.R.

COMPUTED_SIDE <- "^(max|plus|others)\\s*\\((.*)\\)$"
COMPUTED_WORD <- c(max = "work", plus = "delay")
COMPUTED_KIND <- c(max = "max_work", plus = "plus_delay", others = "others")

# NULL for an ordinary side; else list(kind = "max_work", "plus_delay" or
# "others", side), side the parsed SIDE (as parse_side does).
parse_computed_side <- function(text, parameter, where) {
  m <- regmatches(text, regexec(COMPUTED_SIDE, text))[[1]]
  if (!length(m)) return(NULL)
  if (m[2] == "others") return(list(kind = "others", side = parse_side(trimws(m[3]), parameter, where)))
  word <- COMPUTED_WORD[[m[2]]]
  args <- trimws(strsplit(m[3], ";", fixed = TRUE)[[1]])
  if (length(args) != 2L || sum(args == word) != 1L || any(!nzchar(args))) {
    input_error(where, ": '", text, "': a computed side is max(SIDE; work): the operation without work ",
                "and the busy work measured on the left side, or plus(SIDE; delay): the operation without ",
                "delay plus the left side's maximum delay")
  }
  list(kind = COMPUTED_KIND[[m[2]]], side = parse_side(args[args != word], parameter, where))
}

# Adds what a computed side needs to a guideline of parse_assessment: b is
# the side inside max() or plus(), computed its kind; others() wraps both
# sides (a and b the sides inside).
with_computed_side <- function(g) {
  a <- parse_computed_side(g$a_text, g$parameter, g$where)
  b <- parse_computed_side(g$b_text, g$parameter, g$where)
  if (identical(a$kind, "others") || identical(b$kind, "others")) {
    if (!identical(a$kind, "others") || !identical(b$kind, "others")) {
      input_error(g$where, ": '", g$text, "': others(SIDE) is on both sides: others(SIDE) <= others(SIDE)")
    }
    if (!identical(g$relation, "<=")) input_error(g$where, ": '", g$text, "': others(SIDE) needs <=")
    g$a <- a$side
    g$b <- b$side
    g$computed <- "others"
    return(g)
  }
  if (!is.null(a)) {
    fn <- names(COMPUTED_KIND)[COMPUTED_KIND == a$kind]
    input_error(g$where, ": '", g$a_text, "': ", fn, "(SIDE; ", COMPUTED_WORD[[fn]], ") can only be the right side")
  }
  if (is.null(b)) return(g)
  if (!identical(g$relation, "<=")) input_error(g$where, ": '", g$b_text, "': a computed side needs <=")
  g$b <- b$side
  g$computed <- b$kind
  g
}

# The computed sides as tests.csv shows them: a_params and b_params of the
# tests of a guideline of kind `kind` (NA: an ordinary one).
computed_params_text <- function(kind, a_params, b_params) {
  wrap <- function(kinds, format, x) {
    at <- which(kind %chin% kinds)
    x[at] <- sprintf(format, x[at])
    x
  }
  b_params <- wrap("max_work", "max(%s; work)", wrap("plus_delay", "plus(%s; delay)", b_params))
  list(a_params = wrap("others", "others(%s)", a_params), b_params = wrap("others", "others(%s)", b_params))
}

# Each guideline's ratio threshold: its set's `v_thres = ...`, else its
# tag's in registry/guidelines.csv (column v_thres), else NULL (the
# analysis's --v-thres).
guideline_thresholds <- function(guidelines, registry_guidelines) {
  own <- registry_guidelines[nzchar(v_thres), setNames(as.numeric(v_thres), id)]
  lapply(guidelines, function(g) {
    if (is.null(g$v_thres) && !is.na(g$tag) && g$tag %in% names(own)) g$v_thres <- own[[g$tag]]
    g
  })
}

# Stops unless side a of a computed guideline has what its kind needs
# (before the guidelines are assessed in parallel): measured work for
# max(...; work), a measured delay for plus(...; delay), per-process times
# for others(...) (cells: the analysis's cells; ranks: read_ranks; delays:
# reduce_delay).
check_computed_side <- function(guideline, pairs, work, cells = NULL, ranks = NULL, delays = NULL) {
  kind <- guideline$computed
  if (is.null(kind) || !nrow(pairs)) return(invisible())
  what <- sprintf("%s: guideline '%s'", guideline$where %||% "assessment", guideline$text %||% "")
  if (kind == "max_work" && !any(pairs$a_cell %in% work$cell)) {
    input_error(what, ": max(...; work) needs the busy work measured per repetition (work_seconds in the ",
                "results), and no cell of side a has it: side a has no work (fix work_factor or work_us ",
                "on it), or the archives were made before the kernel measured it")
  }
  if (kind == "plus_delay" && !any(fcoalesce(cells$arrival_us[pairs$a_cell], 0) > 0)) {
    input_error(what, ": plus(...; delay) adds the delay measured on the left side, and no cell of ",
                "side a has a delay: fix an arrival pattern on it (arrival=uniform, one_late or ramp)")
  }
  if (kind == "plus_delay" && !any(pairs$a_cell %in% delays$cell)) {
    input_error(what, ": plus(...; delay) needs the delay measured per repetition (delay_seconds in the ",
                "results), and no cell of side a has it")
  }
  if (kind == "others" && !any(pairs$a_cell %in% ranks$cell[ranks$role == "other"])) {
    input_error(what, ": others(...) compares the processes outside the late process's neighborhood ",
                "(results/RUN.ranks.csv, role other), and no cell of side a has one: side a is not ",
                "arrival=one_late, every process is a neighbor of the late one (a Full neighborhood, a ",
                "small grid), or the archives were made before the kernel wrote per-process times")
  }
}

# assess_guideline for a computed side; b_cell is the partner p of each
# test (b's parameters), median_b the median of the b(r). others(...)
# guidelines go to assess_others_guideline (ranks: read_ranks).
assess_computed_guideline <- function(guideline, cells, medians, work, params, p_thres = 0.001, v_thres = 1.10,
                                      pairs = NULL, ranks = NULL, delays = NULL, method = "study",
                                      run_of_unit = NULL, level = 0.95) {
  if (identical(guideline$computed, "others")) {
    return(assess_others_guideline(guideline, cells, ranks, params, p_thres, v_thres, pairs, method = method,
                                   run_of_unit = run_of_unit, level = level))
  }
  what <- sprintf("%s: guideline '%s'", guideline$where %||% "assessment", guideline$text %||% "")
  pairs <- copy(pairs %||% match_sides(cells, guideline$a, guideline$b, params, what))
  if (!nrow(pairs)) return(no_tests())
  check_computed_side(guideline, pairs, work, cells, delays = delays)
  delay <- identical(guideline$computed, "plus_delay")
  added <- if (delay) delays else work
  measured <- unique(added$cell)
  unmeasured <- sum(!pairs$a_cell %in% measured)
  if (unmeasured) {
    nbh_warning(what, ": ", unmeasured, " of ", nrow(pairs), " cells of side a have no measured ",
                if (delay) "delay" else "busy work", "; they are not tested")
  }
  pairs <- pairs[a_cell %in% measured]
  pairs[, virtual := max(cells$cell) + .I]
  right <- medians[pairs[, .(cell = b_cell, virtual, a_cell)], on = "cell", nomatch = NULL,
                   .(virtual, a_cell, run, pure = median)]
  right[added, on = c(a_cell = "cell", "run"), measured := i.median]
  right <- right[!is.na(measured), .(cell = virtual, run,
                                      median = if (delay) pure + measured else pmax(pure, measured))]
  extended <- rbind(cells, cells[pairs$b_cell][, cell := pairs$virtual])
  values <- rbind(medians[cell %in% pairs$a_cell, .(cell, run, median)], right)
  setkeyv(values, c("cell", "run"))
  tests <- assess_guideline(guideline, extended, values, params, p_thres, v_thres,
                            pairs = pairs[, .(a_cell, b_cell = virtual)], method = method,
                            run_of_unit = run_of_unit, level = level)
  tests[pairs, on = c(b_cell = "virtual"), b_cell := i.b_cell]
  tests[]
}
