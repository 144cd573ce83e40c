# The whole assessment of one or several archives, without writing
# anything: read the tables, leave out runs whose processes did not land as
# their deployment asks (select_runs), check the assessment against them
# (before the long part, so that a typo fails fast), reduce every run to
# run medians, assess every guideline (runs and guidelines in parallel
# workers), adjust the p-values and bound every ratio (test_trust), and
# with several library parameter sets compare each with the reference set
# (compare_param_sets); decide every test (violated, holds or open) and,
# for an adaptive campaign, in which round (decisions.R). Where the busy
# work was measured, its run medians (reduce_work) feed computed sides
# (GL16) and the overlap table, and those of the measured arrival delay
# (reduce_delay) AR1's; where the kernel wrote per-process times
# (read_ranks), they feed AR2 and the arrival table, and the clock starts'
# records the report's start skew. Beside them: every cell's tail
# latencies (cell_percentiles), and per persistent experiment the
# repetitions after which its _init pays off (break_even). Returns
# everything the tables, plots and report are made of.

analyze_archives <- function(dirs, assess = NULL, p_thres = 0.001, v_thres = 1.03,
                             root = Sys.getenv("NBH_ROOT", "."), reference_set = NULL, adjust = "none",
                             include_mismatched = FALSE, ci_level = 0.95, hold_ratio = NULL, replay = TRUE,
                             method = NULL) {
  adjust_p(numeric(), adjust)  # an unknown method fails before the long part
  registry <- read_registry(root)
  params <- analysis_parameters(registry)
  progress("reading ", length(dirs), if (length(dirs) == 1L) " archive" else " archives")
  check_distinct_archives(dirs)
  selected <- select_runs(lapply(dirs, read_archive, registry = registry), include_mismatched)
  archives <- selected$archives
  for (a in archives) warn_param_sets_not_in_force(a)
  archives <- lapply(archives, without_damaged_runs)
  if (!sum(vapply(archives, function(a) nrow(a$runs), 0L))) {
    input_error("nothing to assess: every run of ", format_list(dirs, 3L), " is left out (see the warnings above)")
  }
  # An adaptive campaign's looks spend p_thres and the interval's error
  # (decisions.R): each test is decided with the thresholds of its last look.
  looks <- look_rule(archives, p_thres, ci_level, registry)
  hold_ratio <- campaign_hold_ratio(archives, hold_ratio, v_thres)
  if (is.null(assess)) assess <- default_assessment(archives)
  guidelines <- guideline_thresholds(parse_assessment(assess, registry$guidelines$id), registry$guidelines)
  frame <- combine_archives(archives, params)
  guidelines <- with_twin_check(guidelines, frame$cells, params$name)
  sets <- param_set_order(archives)
  reference <- reference_set(sets, reference_set)
  guidelines <- check_assessment(guidelines, frame$cells, params)
  # The guidelines' pairing (some 20 ms each at the study's scale) is done
  # here while the forks begin reducing the runs, and this process joins
  # them when it is done.
  pairs <- NULL
  # The cells' tail latencies (from the value store) are computed by a fork
  # from the moment the run medians are made, while this process makes the
  # tests' units and assesses the guidelines.
  percentiles <- function(cancel = FALSE) NULL
  on.exit(percentiles(cancel = TRUE))
  progress("reducing ", nrow(frame$runs), " runs to their medians (", nrow(frame$cells), " cells)")
  medians <- reduce_runs(archives, frame, meanwhile = function() {
    pairs <<- lapply(guidelines, function(g) {
      match_sides(frame$cells, g$a, g$b, params$name, sprintf("%s: guideline '%s'", g$where, g$text))
    })
  }, with_medians = function(m) percentiles <<- in_background(function() cell_percentiles(m)))
  end_read_ahead(nrow(frame$runs))
  if (!nrow(medians)) {
    input_error("nothing to assess: no measurement of ", format_list(dirs, 3L),
                " is left after the checks (see the warnings above)")
  }
  units <- attr(medians, "rounds")   # NULL: no run has rounds
  guidelines <- guideline_methods(guidelines, method, analysis_default(registry, "method"),
                                  rounds = !is.null(units) && nrow(units$times) > nrow(medians))
  work <- reduce_work(archives, frame, medians)
  delays <- reduce_delay(archives, frame, medians)
  ranks <- read_ranks(archives, frame, medians)
  # The round units, for the paired guidelines (none: an archive without rounds, by default).
  paired <- if (any(vapply(guidelines, function(g) round_method(g$method %||% ""), TRUE))) {
    paired_units(units %||% run_units(medians), attr(work, "rounds"), attr(delays, "rounds"), attr(ranks, "rounds"))
  }
  for (k in seq_along(guidelines)) {
    check_computed_side(guidelines[[k]], pairs[[k]], work, frame$cells, ranks, delays)
  }
  state <- list(guidelines = guidelines, cells = frame$cells, pairs = pairs, params = params$name,
                p_thres = p_thres, v_thres = v_thres, adjust = adjust, ci_level = ci_level, hold_ratio = hold_ratio,
                ranks = ranks, delays = delays, paired = paired, adaptive = looks$adaptive,
                launch_pairs = launch_pairs_of(frame$runs))
  progress("assessing ", length(guidelines), if (length(guidelines) == 1L) " guideline" else " guidelines")
  history <- look_history(state, frame$runs, medians, counted = looks$adaptive)
  tests <- assess_at(state, medians, work, final_thresholds(history, looks))
  single <- tests[method %in% c("paired", "launches") & df %in% 0L, .N]
  if (single) {
    nbh_warning(single, " of ", nrow(tests), " tests have one run (or one pair of launches) on their sides: no test ",
                "across launches is possible, they are open whatever their rounds say (tests.csv df 0); more runs decide them")
  }
  rounds <- NULL
  if (replay) {
    rounds <- decision_rounds(tests, state, frame$runs, medians, work, looks, history)
    tests[, `:=`(decided_round = rounds$decided, flipped = rounds$flipped,
                 look_decisions = look_decision_text(rounds$decisions))]
  }
  medians[, c("at", "below") := NULL]
  comparison <- compare_param_sets(frame$cells, medians, params$name, reference, p_thres, v_thres,
                                   sets = setdiff(sets, reference), launch_pairs = state$launch_pairs,
                                   level = ci_level)
  list(archives = archives, registry = registry, params = params, frame = frame,
       guidelines = guidelines, assessment_file = assess, medians = medians, work = work,
       overlap = overlap_table(frame$cells, medians, work, params$name), tests = tests,
       percentiles = percentiles(), break_even = break_even(archives, frame, medians, registry$operations, ci_level),
       characterization = characterization_table(frame$cells, medians, params$name, ci_level),
       p_thres = p_thres, v_thres = v_thres, param_sets = sets, reference_set = reference,
       set_comparison = comparison, adjust = adjust, ci_level = ci_level, runs = selected,
       graphs = graph_descriptions(archives), looks = looks, hold_ratio = hold_ratio, rounds = rounds, state = state,
       costs = launch_costs(archives, frame),
       arrival = arrival_extra_times(frame$cells, ranks, params$name),
       clock_starts = read_clock_starts(archives, frame, medians))
}

# Every guideline of STATE assessed on MEDIANS (and WORK, for computed
# sides), with adjusted p-values and ratio intervals (test_trust): the
# guidelines, and the bootstrap spread of every cell's run statistics (for
# the intervals of unpaired tests), side by side in the workers. A
# guideline is assessed by its method (guideline_methods): paired, on the
# round units of STATE$paired (paired_units; the runs of MEDIANS only), or
# unpaired/study, comparing the run statistic of its set (`statistic`: run
# medians, or each run's P90 or P99; run_statistic). STATE: list(guidelines,
# cells, pairs (match_sides of each guideline), params (names), p_thres,
# v_thres, adjust, ci_level; ranks and delays for AR2 and AR1, if any;
# paired). An adaptive campaign's looks (decisions.R) call it again on the
# runs of each round (the per-process times and units then of those runs
# only). meanwhile: map_in_workers's.
assess_tests <- function(state, medians, work, meanwhile = NULL) {
  guidelines <- state$guidelines
  statistic_of <- vapply(guidelines, function(g) g$statistic %||% "median", "")
  method_of <- vapply(guidelines, function(g) g$method %||% "study", "")
  unpaired <- !round_method(method_of)
  statistics <- unique(statistic_of[unpaired])
  by_statistic <- setNames(lapply(statistics, function(s) run_statistic(medians, s)), statistics)
  units <- if (any(!unpaired)) units_of_runs(state$paired, unique(medians$run))
  # Each table's rows by cell and its cells' medians, once for the
  # guidelines of that table (not in each worker).
  plain <- vapply(guidelines, function(g) is.null(g$computed), TRUE)
  n_cells <- max(state$cells$cell)
  rows_of <- list()
  if (any(plain & !unpaired)) rows_of$units <- with_cell_medians(cell_rows(units$times, n_cells))
  for (s in unique(statistic_of[plain & unpaired])) {
    rows_of[[s]] <- with_cell_medians(cell_rows(by_statistic[[s]], n_cells))
  }
  # The guidelines with the most pairs first, so that the workers end together.
  first <- order(-vapply(seq_along(guidelines), function(k) NROW(state$pairs[[k]]), 0))
  jobs <- map_in_workers(seq_along(guidelines), function(k) {
    g <- guidelines[[k]]
    v_thres <- g$v_thres %||% state$v_thres
    paired <- round_method(method_of[k])
    values <- if (paired) units$times else by_statistic[[statistic_of[k]]]
    tests <- if (is.null(g$computed)) {
      assess_guideline(g, state$cells, values, state$params, state$p_thres, v_thres, pairs = state$pairs[[k]],
                       method = method_of[k], run_of_unit = units$run_of_unit, level = state$ci_level,
                       run_medians = if (paired) medians, launch_pairs = state$launch_pairs,
                       shared_only = isTRUE(state$adaptive),
                       rows = rows_of[[if (paired) "units" else statistic_of[k]]])
    } else {
      ranks <- if (paired) units$ranks else state$ranks
      if (!is.null(ranks) && !paired) ranks <- ranks[run %in% medians$run]
      assess_computed_guideline(g, state$cells, values, if (paired) units$work else work, state$params,
                                state$p_thres, v_thres, pairs = state$pairs[[k]], ranks = ranks,
                                delays = if (paired) units$delay else state$delays, method = method_of[k],
                                run_of_unit = units$run_of_unit, level = state$ci_level)
    }
    tests[, guideline := k]
  }, meanwhile = meanwhile, first = first)
  tests <- rbindlist(jobs)
  setcolorder(tests, "guideline")
  v_thres <- vapply(guidelines, function(g) g$v_thres %||% state$v_thres, 0)[tests$guideline]
  aa <- vapply(guidelines, function(g) identical(g$tag, "AA"), TRUE)[tests$guideline]
  test_trust(tests, state$p_thres, v_thres, state$adjust, family = fifelse(aa, 2L, 1L))
}

# Each run's pair of launches, where runs were submitted interleaved
# (runs.csv interleave and slot, workflow: the runs of one slot of one
# interleaved sequence were launched back to back, one per parameter set
# or library): data.table(run (run_key), pair), or NULL where no run has
# one. Runs of different deployments are never one pair.
launch_pairs_of <- function(runs) {
  if (!all(c("interleave", "slot") %in% names(runs))) return(NULL)
  x <- runs[!is.na(slot) & !is.na(interleave) & nzchar(as.character(interleave)),
            .(run = run_key, interleave = as.character(interleave), slot = as.integer(slot), deployment)]
  if (!nrow(x)) return(NULL)
  x[, pair := .GRP, by = .(interleave, slot, deployment)]
  x[, .(run, pair)]
}

# The round units of the paired tests (SPEC 7.6) in the form the
# assessment takes them: list(index (unit_index), times, work, delay, ranks),
# each table's `run` the unit. units: round_units (or run_units) of the
# times, list(index, times); work, delay: the attribute "rounds" of
# reduce_work and reduce_delay; ranks: that of read_ranks.
paired_units <- function(units, work, delay, ranks) {
  index <- units$index
  none <- data.table(cell = integer(), run = integer(), round = integer(), median = numeric())
  list(index = index, times = units$times,
       work = as_unit_runs(work %||% none, index), delay = as_unit_runs(delay %||% none, index),
       ranks = as_unit_runs(ranks %||% data.table(cell = integer(), run = integer(), round = integer(),
                                                  rank = integer(), seconds = numeric(),
                                                  delay_seconds = numeric(), role = character()),
                            index, c("cell", "run", "rank")))
}

# PAIRED (paired_units) restricted to the units of the runs RUNS (an
# adaptive look's), with run_of_unit.
units_of_runs <- function(paired, runs) {
  keep <- paired$index$index[run %in% runs, unit]
  all <- length(keep) == nrow(paired$index$index)
  pick <- function(x) if (all) x else x[run %in% keep]
  list(times = pick(paired$times), work = pick(paired$work), delay = pick(paired$delay),
       ranks = pick(paired$ranks), run_of_unit = paired$index$run_of_unit)
}

# Each guideline's method (SPEC 7.6): `given` (analyze --method) for all,
# else its set's `method = ...`, else the default (registry/analysis.csv:
# paired). The default pairs rounds, and an archive without rounds (made
# by a kernel before them: ROUNDS false) has only its launches to pair,
# which caps p at 2^-nrun (10 runs for 0.001, and one reversed run leaves a
# test undecided): by default it is tested unpaired, as before; a set or
# --method may still ask for paired launches. A set that compares each
# run's P90 or P99 (statistic) cannot pair rounds of a few repetitions: it
# is unpaired.
guideline_methods <- function(guidelines, given, default, rounds = TRUE) {
  lapply(guidelines, function(g) {
    g$method <- given %||% g$method %||% if (rounds || default != "paired") default else "unpaired"
    if (round_method(g$method) && !identical(g$statistic %||% "median", "median")) g$method <- "unpaired"
    g
  })
}

# The parameter sets that have runs, in campaign order (param_sets.csv),
# then those only runs.csv names.
param_set_order <- function(archives) {
  listed <- unlist(lapply(archives, function(a) a$param_sets$param_set))
  run <- unlist(lapply(archives, function(a) a$runs$param_set))
  unique(c(intersect(listed, run), run))
}

# campaign/assessment.conf of the archives (they must agree).
default_assessment <- function(archives) {
  files <- file.path(vapply(archives, `[[`, "", "dir"), "campaign", "assessment.conf")
  have <- file.exists(files)
  if (!any(have)) {
    input_error(archives[[1]]$dir, ": no campaign/assessment.conf; name one with --assess FILE")
  }
  texts <- vapply(files[have], function(f) paste(readLines(f, warn = FALSE), collapse = "\n"), "")
  if (length(unique(texts)) > 1L) {
    input_error("the archives have different campaign/assessment.conf files; name one with --assess FILE")
  }
  files[have][1]
}
