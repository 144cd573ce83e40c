# Guidelines with a right side computed per run (SPEC 7.1, GL16):
#
#   ineighbor_alltoall,work_factor=1 <= max(ineighbor_alltoall,work_factor=0; work)
#
# `max(SIDE; work)`: for every cell a of the left side, SIDE names its
# partner cell p (matched as any side is: every parameter but those the
# sides fix), and for every run r the right side's value is
#   b(r) = max(m_p(r), w_a(r)),
# the larger of p's run median and the run median of the busy work a's own
# repetitions measured (reduce_work). The test is then the usual one:
# one-sided rank-sum test of a's run medians against the b(r), ratio of
# their medians (assess_guideline), with the guideline's own threshold
# (registry/guidelines.csv v_thres: 1.10 for GL16).

COMPUTED_SIDE <- "^max\\s*\\((.*)\\)$"

# NULL for an ordinary side; else list(kind = "max_work", side), side the
# parsed SIDE (as parse_side does).
parse_computed_side <- function(text, parameter, where) {
  m <- regmatches(text, regexec(COMPUTED_SIDE, text))[[1]]
  if (!length(m)) return(NULL)
  args <- trimws(strsplit(m[2], ";", fixed = TRUE)[[1]])
  if (length(args) != 2L || sum(args == "work") != 1L || any(!nzchar(args))) {
    input_error(where, ": '", text, "': a computed side is max(SIDE; work): the operation without work ",
                "and the busy work measured on the left side")
  }
  list(kind = "max_work", side = parse_side(args[args != "work"], parameter, where))
}

# Adds what a computed side needs to a guideline of parse_assessment: b is
# the side inside max(), computed its kind.
with_computed_side <- function(g) {
  if (!is.null(parse_computed_side(g$a_text, g$parameter, g$where))) {
    input_error(g$where, ": '", g$a_text, "': max(SIDE; work) can only be the right side")
  }
  computed <- parse_computed_side(g$b_text, g$parameter, g$where)
  if (is.null(computed)) return(g)
  if (!identical(g$relation, "<=")) input_error(g$where, ": '", g$b_text, "': a computed side needs <=")
  g$b <- computed$side
  g$computed <- computed$kind
  g
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

# Stops unless some cell of side a of a computed guideline has measured
# work (before the guidelines are assessed in parallel).
check_computed_side <- function(guideline, pairs, work) {
  if (is.null(guideline$computed) || !nrow(pairs) || any(pairs$a_cell %in% work$cell)) return(invisible())
  input_error(sprintf("%s: guideline '%s'", guideline$where %||% "assessment", guideline$text %||% ""),
              ": max(...; work) needs the busy work measured per repetition (work_seconds in the ",
              "results), and no cell of side a has it: side a has no work (fix work_factor or work_us ",
              "on it), or the archives were made before the kernel measured it")
}

# assess_guideline for a computed right side; b_cell is the partner p of
# each test (b's parameters), median_b the median of the b(r).
assess_computed_guideline <- function(guideline, cells, medians, work, params, p_thres = 0.001, v_thres = 1.10,
                                      pairs = NULL) {
  what <- sprintf("%s: guideline '%s'", guideline$where %||% "assessment", guideline$text %||% "")
  pairs <- copy(pairs %||% match_sides(cells, guideline$a, guideline$b, params, what))
  if (!nrow(pairs)) return(no_tests())
  check_computed_side(guideline, pairs, work)
  measured <- unique(work$cell)
  unmeasured <- sum(!pairs$a_cell %in% measured)
  if (unmeasured) {
    nbh_warning(what, ": ", unmeasured, " of ", nrow(pairs), " cells of side a have no measured busy work; ",
                "they are not tested")
  }
  pairs <- pairs[a_cell %in% measured]
  pairs[, virtual := max(cells$cell) + .I]
  right <- medians[pairs[, .(cell = b_cell, virtual, a_cell)], on = "cell", nomatch = NULL,
                   .(virtual, a_cell, run, pure = median)]
  right[work, on = c(a_cell = "cell", "run"), measured_work := i.median]
  right <- right[!is.na(measured_work), .(cell = virtual, run, median = pmax(pure, measured_work))]
  extended <- rbind(cells, cells[pairs$b_cell][, cell := pairs$virtual])
  values <- rbind(medians[cell %in% pairs$a_cell, .(cell, run, median)], right)
  setkeyv(values, c("cell", "run"))
  tests <- assess_guideline(guideline, extended, values, params, p_thres, v_thres,
                            pairs = pairs[, .(a_cell, b_cell = virtual)])
  tests[pairs, on = c(b_cell = "virtual"), b_cell := i.b_cell]
  tests[]
}
