# Decided or open (SPEC 7.5). Every test is
#   violated  ratio >= v_thres and p <= p_thres (assess_guideline);
#   holds     not violated, and the upper bound of its ratio interval is
#             below the hold ratio: no violation of that size fits the
#             data (for a ~ b the interval lies within (1 / hold, hold):
#             neither side is that much slower);
#   open      neither: more runs may decide it.
# A test's hold ratio is the larger of the analysis's (analyze
# --hold-ratio, else the campaign's hold_ratio, else v_thres) and its
# guideline's own ratio threshold: a test whose ratio is surely below its
# guideline's threshold can never be violated, so it holds.
#
# An adaptive campaign (gen/rounds.py, workflow/adaptive.py) looks after
# every round and runs more of only what open tests need. Every look is
# another chance of a false verdict, so each test's looks spend its errors
# by Lan-DeMets error spending (spending.R), on the information the test
# has at each look: its runs (test_runs: for a paired test the runs both
# sides have, else the runs of its side with fewer) over the plan's
# nrun_max (look_thresholds):
#   violated  ratio >= v_thres and p at or below the look's nominal p: the
#             boundary of registry/analysis.csv look_rule's spending
#             (O'Brien-Fleming-type) of p_thres. Over all its looks a test
#             without a difference is falsely violated with probability at
#             most p_thres.
#   holds     the upper bound of the ratio's interval of the look's level
#             below the hold ratio, the level 1 - 2 g with g the nominal
#             one-sided error of hold_rule's spending (Pocock-type, so that
#             early looks can decide holds) of (1 - ci_level) / 2. The
#             upper bounds are repeated confidence bounds (Jennison &
#             Turnbull, ch. 9): over all its looks a test whose true ratio
#             is at or above the hold ratio falsely holds with probability
#             at most (1 - ci_level) / 2.
# A look at which a test has no more runs than at its last is no new look
# of it (the same data, the same thresholds). The boundaries are those of
# normal statistics with independent increments; the looks' tests are exact
# rank tests, whose p is compared with each look's nominal p
# (docs/analyze.md says why that keeps the error; make bench simulates it:
# bench/bench-adaptive). The analysis of the campaign's archive assesses
# every test with the thresholds of its last look and replays the looks on
# the runs of rounds 1..r (decision_rounds): each test's decision at every
# look, and the round from which it had its final decision.

DECISIONS <- c("violated", "holds", "open")

# Each archive's adaptive.json (gen/rounds.py), NULL for an archive without
# one (a campaign of one round).
look_plans <- function(archives) {
  lapply(archives, function(a) {
    f <- file.path(a$dir, "adaptive.json")
    if (!file.exists(f)) return(NULL)
    plan <- tryCatch(jsonlite::fromJSON(f, simplifyVector = TRUE),
                     error = function(e) input_error(f, ": not valid JSON (", conditionMessage(e), ")"))
    looks <- suppressWarnings(as.integer(plan$looks_planned))
    if (length(looks) != 1L || is.na(looks) || looks < 1L) input_error(f, ": looks_planned is not a count of looks")
    budget <- suppressWarnings(as.integer(plan$nrun_max))
    if (length(budget) != 1L || is.na(budget) || budget < 1L) input_error(f, ": nrun_max is not a count of runs")
    plan$file <- f
    plan
  })
}

# The rules of the looks: list(rule, hold_rule (spending.R's), looks (the
# most any archive planned; 1 without a plan), nrun_max (the plans' largest
# budget), p_thres, ci_level (as given), hold_error ((1 - ci_level) / 2),
# plans, adaptive). The rules are the campaign's (adaptive.json rule,
# hold_rule) where its plan names known ones, else registry/analysis.csv's
# (a plan of an older nbhbench, whose looks shared p_thres by Bonferroni,
# is replayed with them, and says so).
look_rule <- function(archives, p_thres, ci_level, registry) {
  chosen <- list()
  for (key in c("look_rule", "hold_rule")) {
    chosen[[key]] <- analysis_default(registry, key)
    if (!chosen[[key]] %in% SPENDING_RULES) {
      input_error("registry/analysis.csv ", key, ": unknown rule '", chosen[[key]], "' (known: ",
                  paste(SPENDING_RULES, collapse = ", "), ")")
    }
  }
  plans <- Filter(Negate(is.null), look_plans(archives))
  for (plan in plans) {
    for (key in c("look_rule", "hold_rule")) {
      own <- plan[[if (key == "look_rule") "rule" else key]]
      if (is.null(own)) next
      if (own %in% SPENDING_RULES) chosen[[key]] <- own else {
        nbh_warning(plan$file, ": the looks' rule '", own, "' is not an error-spending rule of this nbhbench; ",
                    "the looks are replayed with ", chosen[[key]], " spending (registry/analysis.csv ", key, ")")
      }
    }
  }
  looks <- max(1L, vapply(plans, function(p) as.integer(p$looks_planned), 0L))
  nrun_max <- if (length(plans)) max(vapply(plans, function(p) as.integer(p$nrun_max), 0L)) else NA_integer_
  list(rule = chosen$look_rule, hold_rule = chosen$hold_rule, looks = looks, nrun_max = nrun_max,
       p_thres = p_thres, ci_level = ci_level, hold_error = (1 - ci_level) / 2, plans = plans,
       adaptive = length(plans) > 0L)
}

# Every pair of cells that STATE's guidelines compare: data.table(guideline,
# a_cell, b_cell, paired (the guideline's method is paired)).
look_tests <- function(state) {
  rbindlist(lapply(seq_along(state$pairs), function(k) {
    p <- state$pairs[[k]]
    data.table(guideline = rep(k, nrow(p)), a_cell = p$a_cell, b_cell = p$b_cell,
               paired = rep(round_method(state$guidelines[[k]]$method %||% ""), nrow(p)))
  }))
}

# The runs each of TESTS (look_tests) has among the (cell, run) rows of
# KEPT: for a paired test the runs in which both sides were measured
# (where there are any; else, as its test, it compares its sides' runs),
# else the runs of its side with fewer.
test_runs <- function(tests, kept) {
  cell_runs <- unique(kept[, .(cell, run)])
  per_cell <- cell_runs[, .N, keyby = cell]
  n_a <- fcoalesce(per_cell[J(tests$a_cell), N], 0L)
  n_b <- fcoalesce(per_cell[J(tests$b_cell), N], 0L)
  n <- pmin(n_a, n_b)
  paired <- which(tests$paired & n > 0L)
  if (length(paired)) {
    a <- cell_runs[data.table(i = paired, cell = tests$a_cell[paired]), on = "cell", nomatch = NULL,
                   allow.cartesian = TRUE, .(i, run)]
    b <- cell_runs[data.table(i = paired, cell = tests$b_cell[paired]), on = "cell", nomatch = NULL,
                   allow.cartesian = TRUE, .(i, run)]
    shared <- a[b, on = c("i", "run"), nomatch = NULL][, .N, keyby = i]
    n[shared$i] <- shared$N
  }
  n
}

# The runs of every test at each look: list(tests (look_tests), runs (a
# matrix, tests x rounds: test_runs on the runs of rounds 1..r; without
# COUNTED, which only an adaptive plan's thresholds need, none), round_of
# (each run's round: runs.csv round; an archive without it is one round),
# rounds).
look_history <- function(state, runs, medians, counted = TRUE) {
  tests <- look_tests(state)
  round_of <- fcoalesce(as.integer(runs$round), 1L)
  rounds <- max(round_of, 1L)
  if (!counted) return(list(tests = tests, runs = NULL, round_of = round_of, rounds = rounds))
  kept <- unique(medians[, .(cell, run)])
  kept[, round := round_of[match(run, runs$run_key)]]
  counts <- vapply(seq_len(rounds), function(r) as.numeric(test_runs(tests, kept[round <= r])), numeric(nrow(tests)))
  list(tests = tests, runs = matrix(counts, nrow(tests)), round_of = round_of, rounds = rounds)
}

# Each test's thresholds at the last look of RUNS (tests x looks: the runs
# each test had at each look), for LOOKS (look_rule): data.table(p_look,
# ci_level_look). A test's information history is its runs / nrun_max at
# each look, less the looks that gave it no new run. Information cannot
# pass 1: at the first look that reaches nrun_max runs all of the error is
# spent, and a later look with still more runs has none left (p_look 0,
# an interval of level 1 - 1e-9: it can be neither violated nor hold
# there), not the last boundary again.
look_thresholds <- function(runs, looks) {
  runs <- as.matrix(runs)
  exhausted <- logical(nrow(runs))
  histories <- lapply(seq_len(nrow(runs)), function(i) {
    r <- unique(runs[i, runs[i, ] > 0])
    t <- r / looks$nrun_max
    full <- which(t >= 1 - 1e-12)
    if (length(full)) {
      exhausted[i] <<- full[1] < length(t)
      t <- c(t[seq_len(full[1] - 1L)], 1)
    }
    if (length(t)) t else 1
  })
  out <- data.table(p_look = nominal_levels(histories, looks$p_thres, looks$rule),
                    ci_level_look = 1 - 2 * nominal_levels(histories, looks$hold_error, looks$hold_rule))
  out[exhausted, `:=`(p_look = 0, ci_level_look = 1 - 1e-9)]
  out[]
}

# The tests of one look, each assessed with its own thresholds and decided
# (decide_tests). THRESHOLDS: TESTS (look_tests) with p_look and
# ci_level_look, a row per pair of cells; NULL: STATE's p_thres and
# ci_level for every test (a campaign of one round). The tests of each
# distinct pair of thresholds are assessed together: the most common pair
# with every test (the family of --adjust), the others again on their own
# tests only (with --adjust, on all of them, the family staying whole).
# Returns the tests with p_look and ci_level_look. meanwhile:
# assess_tests's.
assess_at <- function(state, medians, work, thresholds = NULL, meanwhile = NULL) {
  if (is.null(thresholds)) {
    tests <- assess_tests(state, medians, work, meanwhile = meanwhile)
    return(decide_tests(tests[, `:=`(p_look = state$p_thres, ci_level_look = state$ci_level)], state))
  }
  combos <- thresholds[, .N, by = .(p_look, ci_level_look)][order(-N)]
  at <- function(i) modifyList(state, list(p_thres = combos$p_look[i], ci_level = combos$ci_level_look[i]))
  keys <- c("guideline", "a_cell", "b_cell")
  tests <- assess_tests(at(1L), medians, work, meanwhile = meanwhile)
  tests[, `:=`(p_look = combos$p_look[1L], ci_level_look = combos$ci_level_look[1L])]
  for (i in seq_len(nrow(combos))[-1L]) {
    mine <- thresholds[p_look == combos$p_look[i] & ci_level_look == combos$ci_level_look[i], keys, with = FALSE]
    s <- at(i)
    if (identical(state$adjust %||% "none", "none")) {
      s$pairs <- lapply(seq_along(state$pairs), function(k) {
        state$pairs[[k]][mine[guideline == k, .(a_cell, b_cell)], on = c("a_cell", "b_cell"), nomatch = NULL]
      })
    }
    again <- assess_tests(s, medians, work)[mine, on = keys, nomatch = NULL]
    if (!nrow(again)) next
    rows <- tests[again, on = keys, which = TRUE]
    cols <- setdiff(names(again), c(keys, "test", "group"))
    set(tests, rows, cols, again[, cols, with = FALSE])
    set(tests, rows, c("p_look", "ci_level_look"), list(combos$p_look[i], combos$ci_level_look[i]))
  }
  decide_tests(tests, state)
}

# The thresholds of each test at the last look of HISTORY (look_history),
# or NULL for a campaign of one round.
final_thresholds <- function(history, looks) {
  if (!isTRUE(looks$adaptive)) return(NULL)
  cbind(history$tests, look_thresholds(history$runs, looks))
}

# The analysis's hold ratio: GIVEN (--hold-ratio; never below v_thres),
# else the campaigns' hold_ratio (archive.json settings; the largest), else
# v_thres; never below v_thres.
campaign_hold_ratio <- function(archives, given, v_thres) {
  if (!is.null(given)) {
    if (given < v_thres * (1 - EDGE_TOLERANCE)) {
      input_error("--hold-ratio: ", given, " is below the ratio threshold ", v_thres, ": a test whose ratio is ",
                  "surely below ", v_thres, " can never be violated, so it holds already; use --hold-ratio >= ", v_thres)
    }
    return(given)
  }
  set <- unlist(lapply(archives, function(a) a$info$settings$hold_ratio))
  set <- suppressWarnings(as.numeric(set))
  max(c(v_thres, set[!is.na(set)]))
}

# Each test's hold ratio: the larger of the analysis's and its guideline's
# own ratio threshold.
test_hold_ratio <- function(tests, state) {
  vapply(state$guidelines, function(g) max(state$hold_ratio, g$v_thres %||% state$v_thres), 0)[tests$guideline]
}

# tests (assess_tests) with `decision`: violated, holds or open.
decide_tests <- function(tests, state) {
  if (!nrow(tests)) return(tests[, decision := character()][])
  hold <- test_hold_ratio(tests, state)
  alike <- vapply(state$guidelines, function(g) identical(g$relation, "~"), TRUE)[tests$guideline]
  below <- !is.na(tests$ratio_ci_high) & tests$ratio_ci_high < hold
  above <- !is.na(tests$ratio_ci_low) & tests$ratio_ci_low > 1 / hold
  holds <- below & (!alike | above)
  tests[, decision := fifelse(violated, "violated", fifelse(holds, "holds", "open"))][]
}

# The looks of an adaptive campaign, replayed: for each round r before the
# last, every test assessed on the runs of rounds 1..r alone (runs.csv
# round; an archive without it is one round) with the thresholds of its
# look then (LOOKS: look_rule; HISTORY: look_history; without an adaptive
# plan STATE's); the last look is TESTS, the analysis. Returns
# list(decisions: a matrix, a row per row of TESTS and a column per round,
# of the decisions of every look; decided: per row of TESTS the round
# from whose look on it had its final decision, NA if that is open;
# flipped: whether a look found it violated and another found it holds;
# looks: per round and guideline the tests, violated, holds and open at
# that look; rounds: the number of rounds).
decision_rounds <- function(tests, state, runs, medians, work, looks = NULL, history = NULL) {
  history <- history %||% look_history(state, runs, medians)
  last <- history$rounds
  keys <- c("guideline", "a_cell", "b_cell")
  decisions <- matrix("open", nrow(tests), last)
  counts <- vector("list", last)
  for (r in seq_len(last)) {
    t <- if (r == last) tests else {
      keep <- runs$run_key[history$round_of <= r]
      thresholds <- if (isTRUE(looks$adaptive)) {
        cbind(history$tests, look_thresholds(history$runs[, seq_len(r), drop = FALSE], looks))
      }
      assess_at(state, medians[run %in% keep], work[run %in% keep], thresholds)
    }
    now <- if (r == last) t$decision else t$decision[t[tests, on = keys, which = TRUE]]
    decisions[, r] <- fcoalesce(now, "open")   # a test without runs on a side yet: open
    counts[[r]] <- t[, .(round = r, tests = .N, violated = sum(decision == "violated"),
                         holds = sum(decision == "holds"), open = sum(decision == "open")), keyby = guideline]
  }
  c(look_outcomes(decisions), list(looks = rbindlist(counts), rounds = last))
}

# From DECISIONS (tests x looks): list(decisions, decided (the look from
# which each test had its last look's decision; NA where that is open),
# flipped (violated at one look, holds at another)).
look_outcomes <- function(decisions) {
  last <- ncol(decisions)
  final <- decisions[, last]
  decided <- rep(last, nrow(decisions))
  same <- rep(TRUE, nrow(decisions))
  for (r in rev(seq_len(last - 1L))) {
    same <- same & decisions[, r] == final
    decided[same] <- r
  }
  decided[final == "open"] <- NA_integer_
  flipped <- rowSums(decisions == "violated") > 0L & rowSums(decisions == "holds") > 0L
  list(decisions = decisions, decided = decided, flipped = flipped)
}

# Each look's decision of every test in words: "open holds violated".
look_decision_text <- function(decisions) {
  do.call(paste, lapply(seq_len(ncol(decisions)), function(r) decisions[, r]))
}

# The experiments that open tests need: both cells of every open test, as
# (deployment, param_set, id) of the archive (one archive: the workspace
# view an adaptive campaign looks at).
needed_experiments <- function(result) {
  open <- result$tests[decision == "open"]
  cells <- result$frame$cells[cell %in% c(open$a_cell, open$b_cell), .(exp, deployment, param_set)]
  out <- unique(result$frame$ids[archive == 1L, .(exp, id)][cells, on = "exp", nomatch = NULL][, .(deployment, param_set, id)])
  setorderv(out, c("deployment", "param_set", "id"))
  out[]
}

# summary (summary_table, per guideline and context) with the tests that
# hold and that are open after n_groups; a guideline without tests gets zeros.
summary_decisions <- function(summary, tt) {
  by <- c("guideline_no", RUN_PARAMETERS)
  counts <- tt[, .(n_holds_tests = sum(decision == "holds"), n_open_tests = sum(decision == "open")), by = by]
  out <- copy(summary)
  out[counts, on = by, `:=`(n_holds_tests = i.n_holds_tests, n_open_tests = i.n_open_tests)]
  for (col in c("n_holds_tests", "n_open_tests")) {
    if (!col %in% names(out)) set(out, j = col, value = 0L)
    set(out, i = which(is.na(out[[col]])), j = col, value = 0L)
  }
  # beside the other counts (power stays the last column)
  setcolorder(out, c(names(out)[seq_len(match("n_groups", names(out)))], "n_holds_tests", "n_open_tests"))
  out[]
}

# What an adaptive campaign spent against the fixed design of nrun_max runs
# per deployment and parameter set: per context (library, param_set,
# deployment) its runs and experiment runs (a run median of one experiment
# in one run) and those of the fixed design. NULL without a plan.
rounds_spent <- function(result) {
  plans <- result$looks$plans
  if (!length(plans)) return(NULL)
  nrun_max <- max(vapply(plans, function(p) as.integer(p$nrun_max), 0L))
  runs <- result$frame$runs
  runs[, round := fcoalesce(as.integer(round), 1L)]
  per_run <- result$medians[, .N, keyby = run]
  runs[per_run, on = c(run_key = "run"), measured := i.N]
  cells <- result$frame$cells[, .(experiments = .N), by = context]
  spent <- runs[, .(runs = .N, rounds = max(round), experiment_runs = sum(fcoalesce(measured, 0L))),
                keyby = c("context", RUN_PARAMETERS)]
  spent[cells, on = "context", experiments := i.experiments]
  spent[, `:=`(fixed_runs = nrun_max, fixed_experiment_runs = experiments * nrun_max)]
  spent[, context := NULL][]
}

# The adaptive rule replayed on a complete archive, without measuring
# anything (make bench: bench/bench-adaptive): the first round is every
# cell's first NRUN runs (in run order, within its context), each look
# decides every test with the thresholds of its own look (look_thresholds
# on the runs each test had at each look, the budget NRUN_MAX: by default
# the runs every context has), and each cell of an open test gets its next
# STEP runs, up to NRUN_MAX, as rounds of an adaptive campaign would give
# it (a paired test compares the rounds of the runs both its cells were
# given). STICKY: a test that an earlier look decided and that is open
# again gets no more runs (an adaptive campaign gives it more: the make
# bench figure of what that costs). RESULT: analyze_archives of the
# complete archive (its tests are the fixed design's). Returns list(tests: the last look's tests with
# decided_round, flipped and look_decisions; looks: per look the runs and
# decisions; spent: runs and experiment runs of the rounds and of the
# fixed design; looks_planned; nrun_max).
replay_rounds <- function(result, nrun, step, nrun_max = NULL, sticky = FALSE) {
  runs <- copy(result$frame$runs)
  runs[, rank := frank(run, ties.method = "first"), by = context]
  nrun_max <- nrun_max %||% min(runs[, .N, by = context]$N)
  looks_planned <- 1L + as.integer(ceiling(max(nrun_max - nrun, 0) / step))
  rule <- modifyList(result$looks, list(nrun_max = nrun_max, adaptive = TRUE))
  state <- result$state
  rank_of_run <- runs$rank[order(runs$run_key)]
  medians <- copy(result$medians)[, rank := rank_of_run[run]]
  work <- copy(result$work)[, rank := rank_of_run[run]]
  unit_rank <- if (!is.null(state$paired)) rank_of_run[state$paired$index$run_of_unit]
  cells <- result$frame$cells[, .(cell, context)]
  measured <- sort(unique(medians$cell))
  allowed <- integer(nrow(cells))   # the runs each cell has had so far
  allowed[measured] <- min(nrun, nrun_max)
  launched <- setNames(rep(min(nrun, nrun_max), uniqueN(cells$context)), sort(unique(cells$context)))
  tests_all <- look_tests(state)
  history <- matrix(0, nrow(tests_all), 0L)
  keys <- c("guideline", "a_cell", "b_cell")
  decisions <- NULL
  out <- list()
  for (r in seq_len(looks_planned)) {
    kept <- medians[rank <= allowed[cell]]
    history <- cbind(history, test_runs(tests_all, kept))
    s <- state
    if (!is.null(state$paired)) {
      units <- function(x) if (!nrow(x)) x else x[unit_rank[run] <= allowed[cell]]
      for (part in c("times", "work", "delay", "ranks")) s$paired[[part]] <- units(state$paired[[part]])
    }
    t <- assess_at(s, kept, work[rank <= allowed[cell]], cbind(tests_all, look_thresholds(history, rule)))
    now <- if (is.null(decisions)) t$decision else t$decision[t[decisions, on = keys, which = TRUE]]
    decisions <- if (is.null(decisions)) t[, c(keys, "decision"), with = FALSE] else
      cbind(decisions, fcoalesce(now, "open"))
    setnames(decisions, ncol(decisions), paste0("look", r))
    out[[r]] <- t[, .(round = r, runs = sum(launched), experiment_runs = sum(allowed), tests = .N,
                      violated = sum(decision == "violated"), holds = sum(decision == "holds"),
                      open = sum(decision == "open"))]
    wanted <- t$decision == "open"
    if (sticky) {  # a test an earlier look decided needs no more runs
      decided_before <- rowSums(as.matrix(decisions[, -seq_along(keys), with = FALSE]) != "open") > 0L
      wanted <- wanted & !decided_before[decisions[t, on = keys, which = TRUE]]
    }
    grow <- unique(c(t$a_cell[wanted], t$b_cell[wanted]))
    grow <- grow[allowed[grow] < nrun_max]
    if (!length(grow) || r == looks_planned) break
    allowed[grow] <- pmin(allowed[grow] + step, nrun_max)
    more <- as.character(unique(cells$context[grow]))
    launched[more] <- pmin(launched[more] + step, nrun_max)
  }
  outcome <- look_outcomes(as.matrix(decisions[, -seq_along(keys), with = FALSE]))
  t <- t[decisions[, keys, with = FALSE], on = keys]
  t[, `:=`(decided_round = outcome$decided, flipped = outcome$flipped,
           look_decisions = look_decision_text(outcome$decisions))]
  list(tests = t, looks = rbindlist(out), looks_planned = looks_planned, nrun_max = nrun_max,
       spent = list(runs = sum(launched), fixed_runs = length(launched) * nrun_max,
                    experiment_runs = sum(allowed), fixed_experiment_runs = length(measured) * nrun_max))
}
