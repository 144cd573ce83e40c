# How to spend the next hour of machine time (SPEC 7.6; Kalibera & Jones,
# "Rigorous benchmarking in reasonable time", ISMM 2013, optimal repetition
# counts). A two-level test's log ratio estimate has the variance
#   V(R, K) = (var_launch + var_round / K) / R
# with R runs (launches) of K rounds (launch_test.R's variance components),
# and its interval the half-width h = qt(1 - (1 - level) / 2, R - 1)
# sqrt(V). More rounds shrink only the second term: no number of rounds
# gets below the launches' own share var_launch / R. A run costs c_launch
# (starting the processes, the library, the topologies' first setup) plus
# K c_round; the cost of the variance, (c_launch + K c_round)(var_launch +
# var_round / K), is least at
#   K* = sqrt(c_launch var_round / (c_round var_launch)),
# where a round costs what its share of the variance is worth. "More
# rounds" means more rounds of the same size: blocks and nrep grow
# together (nrep / blocks repetitions a round), for a round of fewer
# repetitions has a noisier median (a larger var_round).
#
# Per guideline and context, over its tests of the two-level test (method
# paired): the median variance components, rounds and runs; the interval's
# half-width now; the runs that reach the TARGET half-width (a ratio, e.g.
# the hold ratio: a test of two equal sides then holds) at the current
# rounds, the rounds that reach it at the current runs (none where the
# launches alone are wider), K* and the runs at K*, and the machine time
# of each way from the costs (launch_costs).

PLAN_COLUMNS <- c("guideline_no", "tag", "guideline", RUN_PARAMETERS, "tests", "runs", "rounds", "var_launch",
                  "var_round", "launch_share", "half_width", "target", "runs_needed", "rounds_needed",
                  "best_rounds", "runs_at_best", "seconds_per_launch", "seconds_per_round", "seconds_more_runs",
                  "seconds_more_rounds", "seconds_best", "advice")

# The half-width (log scale) of R runs of K rounds.
plan_half_width <- function(var_launch, var_round, runs, rounds, level = 0.95) {
  out <- qt(1 - (1 - level) / 2, pmax(runs - 1, 1)) * sqrt((var_launch + var_round / rounds) / runs)
  out[runs < 2] <- Inf
  out
}

# The fewest runs (at most LIMIT) of K rounds whose half-width is at most W.
runs_to_reach <- function(var_launch, var_round, rounds, w, level = 0.95, limit = 10000L) {
  vapply(seq_along(var_launch), function(i) {
    if (!is.finite(w[i]) || is.na(var_launch[i]) || is.na(var_round[i])) return(NA_integer_)
    n <- 2L
    while (n <= limit && plan_half_width(var_launch[i], var_round[i], n, rounds[i], level) > w[i]) {
      n <- if (n < 64L) n + 1L else as.integer(ceiling(n * 1.05))
    }
    if (n > limit) NA_integer_ else n
  }, 0L)
}

# The fewest rounds at R runs whose half-width is at most W, NA where the
# launches alone are wider.
rounds_to_reach <- function(var_launch, var_round, runs, w, level = 0.95) {
  q <- qt(1 - (1 - level) / 2, pmax(runs - 1, 1))
  room <- runs * (w / q)^2 - var_launch   # what var_round / K may be
  out <- ceiling(var_round / room)
  out[!is.finite(out) | room <= 0 | runs < 2] <- NA_real_
  as.integer(pmax(out, 1))
}

# Each archive's cost of a launch and of a round, per deployment, from the
# runs' provenance (RUN.prov.json start_time and end_time: the kernel's
# time; the launch costs what passes between one run's end and the next
# one's start, on a local machine that runs them one after another; gaps
# more than ten times a run's kernel time, a queue's waits, are left out).
# Returns data.table(library, param_set, deployment, nprocs,
# seconds_per_launch, seconds_per_round) -- NA where unknown.
launch_costs <- function(archives, frame) {
  rows <- rbindlist(lapply(seq_along(archives), function(a) {
    archive <- archives[[a]]
    prov <- read_provenance(archive)
    files <- file.path(archive$dir, "results", paste0(archive$runs$run_id, ".prov.json"))
    ids <- archive$runs$run_id[file.exists(files)]
    time_of <- function(p, key) {
      v <- p[[key]]
      if (is.null(v)) NA_real_ else as.numeric(as.POSIXct(v, format = "%Y-%m-%dT%H:%M:%SZ", tz = "UTC"))
    }
    data.table(archive = a, run_id = ids, start = vapply(prov, function(p) if (is.null(p)) NA_real_ else time_of(p, "start_time"), 0),
               end = vapply(prov, function(p) if (is.null(p)) NA_real_ else time_of(p, "end_time"), 0))
  }))
  if (!nrow(rows)) return(NULL)
  runs <- frame$runs[, c("archive", "run_id", RUN_PARAMETERS), with = FALSE]
  rows <- runs[rows, on = c("archive", "run_id"), nomatch = NULL]
  rows <- rows[is.finite(start) & is.finite(end)]
  if (!nrow(rows)) return(NULL)
  # One sequence over every archive: archives whose runs were submitted
  # interleaved (submit --interleave-with) take turns, and the gap after a
  # run is what its launch cost, not the other archive's run in between.
  setorderv(rows, c("start", "end"))
  rows[, kernel := pmax(end - start, 0)]
  rows[, gap := shift(start, -1L) - end]
  typical <- max(median(rows$kernel), 1)
  rows[gap < 0 | gap > 10 * typical, gap := NA_real_]
  rows[, .(kernel = median(kernel), launch = if (all(is.na(gap))) NA_real_ else median(gap, na.rm = TRUE)),
       by = RUN_PARAMETERS]
}

# plan.csv: one row per guideline and context with two-level tests (TT: the
# test table; COSTS: launch_costs with kernel (seconds a run measures) and
# launch (seconds between runs); TARGET: the ratio the interval's
# half-width should reach, e.g. 1.03 for +/- 3 %).
plan_repetitions <- function(tt, costs, target, level = 0.95) {
  by <- c("guideline_no", "tag", "guideline", RUN_PARAMETERS)
  x <- tt[method == "paired" & !is.na(var_round) & runs_a >= 2L]
  if (!nrow(x)) return(data.table())
  out <- x[, .(tests = .N, runs = as.integer(median(runs_a)), rounds = median(pairs / runs_a),
               var_launch = median(var_launch), var_round = median(var_round),
               launch_share = median(launch_share, na.rm = TRUE)), by = by]
  out[, rounds := pmax(as.integer(round(rounds)), 1L)]
  out[, half_width := exp(plan_half_width(var_launch, var_round, runs, rounds, level)) - 1]
  w <- log(target)
  set(out, j = "target", value = target - 1)
  out[, runs_needed := runs_to_reach(var_launch, var_round, rounds, rep(w, .N), level)]
  out[, rounds_needed := rounds_to_reach(var_launch, var_round, runs, rep(w, .N), level)]
  if (!is.null(costs) && nrow(costs)) {
    out[costs, on = RUN_PARAMETERS, `:=`(kernel = i.kernel, launch = i.launch)]
  }
  if (!"kernel" %in% names(out)) out[, `:=`(kernel = NA_real_, launch = NA_real_)]
  out[, `:=`(seconds_per_round = kernel / rounds, seconds_per_launch = launch)]
  # Unknown costs: a launch taken to cost what a round does.
  cl <- out[, fcoalesce(seconds_per_launch, seconds_per_round, 1)]
  cr <- out[, fcoalesce(seconds_per_round, seconds_per_launch, 1)]
  # K* only where launches add variance (evaluated there alone: 1 / 0 is no count of rounds).
  launches_vary <- which(out$var_launch > 0)
  best <- rep(NA_integer_, nrow(out))
  best[launches_vary] <- out[launches_vary, as.integer(pmax(1, pmin(round(sqrt(
    cl[launches_vary] * var_round / (cr[launches_vary] * var_launch))), 1e6)))]
  out[, best_rounds := best]
  out[is.na(best_rounds), best_rounds := pmax(rounds_needed, rounds, na.rm = TRUE)]
  out[, runs_at_best := runs_to_reach(var_launch, var_round, best_rounds, rep(w, .N), level)]
  cost <- function(runs, rounds) runs * (cl + rounds * cr)
  now <- cost(out$runs, out$rounds)
  out[, `:=`(seconds_more_runs = pmax(cost(runs_needed, rounds) - now, 0),
             seconds_more_rounds = pmax(cost(runs, rounds_needed) - now, 0),
             seconds_best = cost(runs_at_best, best_rounds))]
  out[, advice := plan_advice(half_width, target, runs, rounds, runs_needed, rounds_needed, seconds_more_runs,
                              seconds_more_rounds, best_rounds, runs_at_best)]
  setcolorder(out, intersect(PLAN_COLUMNS, names(out)))
  out[, intersect(PLAN_COLUMNS, names(out)), with = FALSE]
}

# One sentence per row: which way reaches the target, and the cheaper one.
plan_advice <- function(half_width, target, runs, rounds, runs_needed, rounds_needed, more_runs, more_rounds,
                        best_rounds, runs_at_best) {
  fmt <- function(x) format(round(x), big.mark = ",", trim = TRUE)
  out <- character(length(half_width))
  for (i in seq_along(out)) {
    if (is.finite(half_width[i]) && half_width[i] <= target[i]) {
      out[i] <- sprintf("already within +/-%.3g %%", 100 * target[i])
      next
    }
    by_runs <- if (is.na(runs_needed[i])) "no feasible number of runs" else
      sprintf("%d runs of %d rounds (%s s more)", runs_needed[i], rounds[i], fmt(more_runs[i]))
    by_rounds <- if (is.na(rounds_needed[i])) sprintf("no number of rounds at %d runs (the launches alone are wider)", runs[i]) else
      sprintf("%d rounds a run at %d runs (%s s more)", rounds_needed[i], runs[i], fmt(more_rounds[i]))
    cheaper <- if (is.na(rounds_needed[i]) || (!is.na(runs_needed[i]) && more_runs[i] <= more_rounds[i])) "more launches" else "more rounds"
    out[i] <- sprintf("%s: %s, or %s; cheapest per unit of variance: %s round%s a run (%s runs)", cheaper, by_runs,
                      by_rounds, best_rounds[i], if (identical(as.integer(best_rounds[i]), 1L)) "" else "s",
                      if (is.na(runs_at_best[i])) "-" else runs_at_best[i])
  }
  out
}

# PLAN (plan.csv, as read back) again for another TARGET ratio: the same
# components, costs, runs and rounds.
replan <- function(plan, target, level = 0.95) {
  x <- copy(plan)
  w <- log(target)
  set(x, j = "target", value = target - 1)
  x[, runs_needed := runs_to_reach(var_launch, var_round, rounds, rep(w, .N), level)]
  x[, rounds_needed := rounds_to_reach(var_launch, var_round, runs, rep(w, .N), level)]
  cl <- x[, fcoalesce(as.numeric(seconds_per_launch), as.numeric(seconds_per_round), 1)]
  cr <- x[, fcoalesce(as.numeric(seconds_per_round), as.numeric(seconds_per_launch), 1)]
  x[, runs_at_best := runs_to_reach(var_launch, var_round, best_rounds, rep(w, .N), level)]
  cost <- function(runs, rounds) runs * (cl + rounds * cr)
  now <- cost(x$runs, x$rounds)
  x[, `:=`(seconds_more_runs = pmax(cost(runs_needed, rounds) - now, 0),
           seconds_more_rounds = pmax(cost(runs, rounds_needed) - now, 0),
           seconds_best = cost(runs_at_best, best_rounds))]
  x[, advice := plan_advice(half_width, target, runs, rounds, runs_needed, rounds_needed, seconds_more_runs,
                            seconds_more_rounds, best_rounds, runs_at_best)]
  x[]
}
