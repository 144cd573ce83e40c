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
# another chance of a false verdict, so the looks it plans share the
# thresholds (registry/analysis.csv look_rule, "bonferroni"): each look
# tests at p_thres / looks and bounds ratios with intervals of level
# 1 - (1 - ci_level) / looks. By the union bound, over all its looks a test
# is falsely violated with probability at most p_thres, and falsely holds
# (its true ratio at or above the hold ratio) at most (1 - ci_level) / 2,
# however the looks depend on each other (they share runs: an alpha-spending
# boundary of group-sequential designs assumes normal statistics with known
# correlation, which exact rank-sum tests of 7-30 run medians are not). The
# analysis of the campaign's archive uses the same thresholds and replays
# the looks on the runs of rounds 1..r (decision_rounds): the round in
# which each test was first decided.

DECISIONS <- c("violated", "holds", "open")
LOOK_RULES <- c("bonferroni")

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
    plan
  })
}

# The thresholds of one look: list(rule, looks, p_thres, ci_level (as
# given), p_look, ci_level_look (spent), plans, adaptive). With several
# archives the most looks any of them planned.
look_rule <- function(archives, p_thres, ci_level, registry) {
  rule <- analysis_default(registry, "look_rule")
  if (!rule %in% LOOK_RULES) {
    input_error("registry/analysis.csv look_rule: unknown rule '", rule, "' (known: ", paste(LOOK_RULES, collapse = ", "), ")")
  }
  plans <- Filter(Negate(is.null), look_plans(archives))
  looks <- max(1L, vapply(plans, function(p) as.integer(p$looks_planned), 0L))
  list(rule = rule, looks = looks, p_thres = p_thres, ci_level = ci_level, p_look = p_thres / looks,
       ci_level_look = 1 - (1 - ci_level) / looks, plans = plans, adaptive = length(plans) > 0L)
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

# The looks of an adaptive campaign, replayed: for each round r, every
# test assessed on the runs of rounds 1..r alone (runs.csv round; an
# archive without it is one round), with the thresholds of one look.
# Returns list(decided: per row of TESTS the first round whose look decided
# it, NA if none did; looks: per round and guideline the tests, violated,
# holds and open at that look; rounds: the number of rounds).
decision_rounds <- function(tests, state, runs, medians, work) {
  round_of <- fcoalesce(as.integer(runs$round), 1L)
  last <- max(round_of, 1L)
  decided <- rep(NA_integer_, nrow(tests))
  looks <- vector("list", last)
  for (r in seq_len(last)) {
    t <- if (r == last) tests else {
      keep <- runs$run_key[round_of <= r]
      decide_tests(assess_tests(state, medians[run %in% keep], work[run %in% keep]), state)
    }
    now <- if (r == last) t$decision else t$decision[t[tests, on = c("guideline", "a_cell", "b_cell"), which = TRUE]]
    decided[is.na(decided) & !is.na(now) & now != "open"] <- r
    looks[[r]] <- t[, .(round = r, tests = .N, violated = sum(decision == "violated"),
                        holds = sum(decision == "holds"), open = sum(decision == "open")), keyby = guideline]
  }
  list(decided = decided, looks = rbindlist(looks), rounds = last)
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
# decides with the thresholds of one of the planned looks, and each cell
# of an open test gets its next STEP runs, up to NRUN_MAX (default: the
# runs every context has), as rounds of an adaptive campaign would give
# it. RESULT: analyze_archives of the complete archive (its tests are the
# fixed design's). Returns list(tests: the last look's tests with
# decided_round, looks: per look the runs and decisions, spent: runs and
# experiment runs of the rounds and of the fixed design, looks_planned).
replay_rounds <- function(result, nrun, step, nrun_max = NULL) {
  runs <- copy(result$frame$runs)
  runs[, rank := frank(run, ties.method = "first"), by = context]
  nrun_max <- nrun_max %||% min(runs[, .N, by = context]$N)
  looks <- 1L + as.integer(ceiling(max(nrun_max - nrun, 0) / step))
  state <- modifyList(result$state, list(p_thres = result$looks$p_thres / looks,
                                         ci_level = 1 - (1 - result$looks$ci_level) / looks))
  medians <- copy(result$medians)[, rank := runs$rank[match(run, runs$run_key)]]
  work <- copy(result$work)[, rank := runs$rank[match(run, runs$run_key)]]
  cells <- result$frame$cells[, .(cell, context)]
  measured <- sort(unique(medians$cell))
  allowed <- integer(nrow(cells))   # the runs each cell has had so far
  allowed[measured] <- min(nrun, nrun_max)
  launched <- setNames(rep(min(nrun, nrun_max), uniqueN(cells$context)), sort(unique(cells$context)))
  decided <- NULL
  out <- list()
  for (r in seq_len(looks)) {
    t <- decide_tests(assess_tests(state, medians[rank <= allowed[cell]], work[rank <= allowed[cell]]), state)
    first <- if (is.null(decided)) rep(NA_integer_, nrow(t)) else
      decided$round[decided[t, on = c("guideline", "a_cell", "b_cell"), which = TRUE]]
    first[is.na(first) & t$decision != "open"] <- r
    decided <- t[, .(guideline, a_cell, b_cell, round = first)]
    out[[r]] <- t[, .(round = r, runs = sum(launched), experiment_runs = sum(allowed), tests = .N,
                      violated = sum(decision == "violated"), holds = sum(decision == "holds"),
                      open = sum(decision == "open"))]
    grow <- unique(c(t[decision == "open", a_cell], t[decision == "open", b_cell]))
    grow <- grow[allowed[grow] < nrun_max]
    if (!length(grow) || r == looks) break
    allowed[grow] <- pmin(allowed[grow] + step, nrun_max)
    more <- as.character(unique(cells$context[grow]))
    launched[more] <- pmin(launched[more] + step, nrun_max)
  }
  t[, decided_round := first]
  list(tests = t, looks = rbindlist(out), looks_planned = looks, nrun_max = nrun_max,
       spent = list(runs = sum(launched), fixed_runs = length(launched) * nrun_max,
                    experiment_runs = sum(allowed), fixed_experiment_runs = length(measured) * nrun_max))
}
