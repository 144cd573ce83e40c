# Reads the measurements of every run, one results file at a time, and
# reduces each to its run medians: Tukey filter and median per experiment
# (SPEC 5, step 1). Runs are independent: with several cores they are
# reduced in parallel (forked workers, NBH_ANALYZE_CORES to choose how
# many); a worker's warnings are raised again here, in run order. Memory
# stays at a few runs' rows, and the times themselves, sorted, in a value
# store the workers share (analyze/native/value_store.c; without one they
# come back to this process): what the cell percentiles read
# (percentiles.R). Returns data.table(cell, run, median, n, n_kept, p90,
# p99, at, below): the run's key (runs$run_key), the median of the n_kept
# values the filter kept of the n measured, numpy's 90th and 99th
# percentile of all n (the run's value for `statistic = p90` or `p99`), and
# where its sorted times are: from position `at` (0-based) of the values,
# the kept ones from at + below. The values (the store, or a double vector)
# are the table's attribute "values". with_medians, a function, is called
# with the table as soon as it is made, before its round units (the
# attribute "rounds"), which take a while: analyze_archives starts the
# cells' percentiles in a fork there.

reduce_runs <- function(archives, frame, cores = analysis_cores(), meanwhile = NULL, with_medians = NULL) {
  runs <- frame$runs
  native_library()   # compiled and loaded once, before the workers fork
  nrep_by_archive <- lapply(archives, function(a) nrep_of_id(a$experiments))
  blocks_by_archive <- lapply(archives, function(a) blocks_of_id(a$experiments))
  slots_by_archive <- Map(round_slots, nrep_by_archive, blocks_by_archive)
  # Each run's region of the value store: as many values as its archive's
  # experiments have repetitions, then its round medians, one per slot.
  times <- vapply(archives, function(a) sum(as.numeric(a$experiments$nrep)), 0)[runs$archive]
  region <- times + vapply(slots_by_archive, function(s) length(s$id), 0)[runs$archive]
  offset <- c(0, cumsum(region))
  store <- if (nrow(runs)) call_native("nbh_store_new", offset[nrow(runs) + 1L])
  round_offset <- offset[seq_len(nrow(runs))] + times
  # Per run, plain lists: a data.table operation costs ~1 ms, a run's reading ~10.
  out <- map_in_workers(seq_len(nrow(runs)), function(i) {
    k <- runs$archive[i]
    reduce_run(list(run_id = runs$run_id[i], state = runs$state[i], total = runs$experiments_total[i]),
               archives[[k]], nrep_by_archive[[k]], store, offset[i], blocks_by_archive[[k]], round_offset[i])
  }, cores, meanwhile)
  warn_unlisted_results(archives)
  if (is.null(store)) {   # the sorted times came back with the runs
    returned <- lapply(out, function(m) m$values %||% numeric())
    offset <- c(0, cumsum(as.numeric(lengths(returned))))
    values <- unlist(returned, use.names = FALSE) %||% numeric()
  } else {
    values <- store
  }
  at <- rep.int(offset[seq_along(out)], vapply(out, function(m) length(m$id), 0L)) +
    unlist(lapply(out, `[[`, "start"), use.names = FALSE) %||% numeric()
  rounds <- lapply(out, `[[`, "rounds")
  out <- lapply(out, function(m) m[c("id", "median", "n", "p90", "p99", "below")])
  # Each row's cell, by indexing rather than joins (a run's rows are all of
  # one archive and context): cell_of_id_by_archive's (archive, id, context) -> cell.
  of_run <- rep.int(seq_len(nrow(runs)), vapply(out, function(m) length(m$id), 0L))
  m <- rbindlist(out)
  cell_fn <- cell_of_id_by_archive(archives, frame, runs)
  context <- runs$context[of_run]
  cell <- n <- integer(nrow(m))
  for (a in seq_along(archives)) {
    mine <- which(runs$archive[of_run] == a)
    cell[mine] <- cell_fn[[a]](m$id[mine], context[mine])
    n[mine] <- nrep_by_archive[[a]][m$id[mine] + 1L]
  }
  # setDT: the columns as they are (data.table() would copy them, some 20 MB).
  medians <- setDT(list(cell = cell, run = runs$run_key[of_run], median = m$median, n = n, n_kept = m$n,
                        p90 = m$p90, p99 = m$p99, at = as.numeric(at), below = m$below))
  setkeyv(medians, c("cell", "run"))
  set_attribute(medians, "values", values)
  if (!is.null(with_medians)) with_medians(medians)
  stored <- list(store = store, offset = round_offset, slots = slots_by_archive)
  set_attribute(medians, "rounds", round_units(rounds, medians, runs, frame, cell_fn, stored))
  medians
}

# The slots of an archive's round medians in a run's region of the value
# store (results_file.c): every experiment id with repetitions (nrep_of_id
# > 0), in order, each its rounds 1..blocks. list(id, round), one element
# per slot.
round_slots <- function(nrep, blocks) {
  k <- which(nrep > 0L)
  list(id = rep.int(k - 1L, blocks[k]), round = sequence(blocks[k]))
}

# Per archive, a function from experiment ids and their runs' context to cells (NA where none).
cell_of_id_by_archive <- function(archives, frame, runs) {
  cell_of <- matrix(NA_integer_, max(frame$cells$exp, 0L), max(runs$context, 0L))
  cell_of[cbind(frame$cells$exp, frame$cells$context)] <- frame$cells$cell
  lapply(seq_along(archives), function(a) {
    ids <- frame$ids[archive == a]
    exp_of_id <- rep(NA_integer_, max(ids$id, 0L) + 1L)
    exp_of_id[ids$id + 1L] <- ids$exp
    function(id, context) {   # context: one, or one per id
      exp <- exp_of_id[pmin(id, length(exp_of_id) - 1L) + 1L]
      exp[id >= length(exp_of_id)] <- NA_integer_
      if (any(exp > nrow(cell_of), na.rm = TRUE)) return(cell_of[cbind(exp, context)])
      cell_of[exp + (context - 1L) * nrow(cell_of)]   # cell_of[cbind(exp, context)], without its matrix
    }
  })
}

# The units of the paired tests (SPEC 7.6), from the round medians of every
# run -- the Tukey median of the repetitions of each experiment in each
# round of each run: round_unit_table's list(index, times). A run's round
# medians are in the value store (rounds TRUE: STORED's store, from the
# run's STORED$offset, in the slots of its archive's STORED$slots), or
# came back as a list (id, round, median; read by read_results, or no
# store); a run without rounds (a kernel before them; its results have no
# round column) is one round: its run medians. NULL where no run has
# rounds: run_units are the units then, made where needed.
round_units <- function(rounds, medians, runs, frame, cell_fn, stored = NULL) {
  has_rounds <- !vapply(rounds, is.null, TRUE)
  with_rounds <- runs$run_key[has_rounds]
  if (!length(with_rounds) || !nrow(medians)) return(NULL)   # none: the caller says why
  in_store <- which(vapply(rounds, isTRUE, TRUE))
  listed <- which(vapply(rounds, function(r) is.list(r) && length(r$id) > 0L, TRUE))
  column <- function(name) unlist(lapply(rounds[listed], `[[`, name), use.names = FALSE)
  # Each run's cells by indexing a table from its ids to the cells of its
  # archive and context, made once per archive and context.
  top <- max(0L, vapply(rounds[listed], function(r) max(r$id), 0L))
  cell_of_id <- list()
  cell <- unlist(lapply(listed, function(i) {
    key <- paste(runs$archive[i], runs$context[i])
    if (is.null(cell_of_id[[key]])) cell_of_id[[key]] <<- cell_fn[[runs$archive[i]]](0:top, runs$context[i])
    cell_of_id[[key]][rounds[[i]]$id + 1L]
  }), use.names = FALSE)
  run <- rep.int(runs$run_key[listed], vapply(rounds[listed], function(r) length(r$id), 0L))
  plain <- if (all(has_rounds)) medians[0L] else medians[!run %in% with_rounds]
  # The stored runs' slots: a cell and a round per slot of each archive and context.
  layout <- paste(runs$archive[in_store], runs$context[in_store])
  first <- match(unique(layout), layout)
  slot_cell <- lapply(in_store[first], function(i) {
    cell_fn[[runs$archive[i]]](stored$slots[[runs$archive[i]]]$id, runs$context[i])
  })
  slot_round <- lapply(in_store[first], function(i) stored$slots[[runs$archive[i]]]$round)
  round_unit_table(c(cell, plain$cell), c(run, plain$run), c(column("round"), rep.int(1L, nrow(plain))),
                   c(column("median"), plain$median),
                   stored = if (length(in_store)) {
                     list(store = stored$store, offset = stored$offset[in_store], layout = match(layout, unique(layout)),
                          slot_cell = slot_cell, slot_round = slot_round, run = runs$run_key[in_store])
                   })
}

# The units of runs without rounds (round_units): their run medians, each
# run one round.
run_units <- function(medians) {
  round_unit_table(medians$cell, medians$run, rep.int(1L, nrow(medians)), medians$median)
}

# The run medians of one run (run: list(run_id, state)): what run_summary
# gives (list(id, median, n, p90, p99, below, start, values)), the same as
# run_medians(tukey_filter(x)) but in one pass over the run's values, its
# sorted times into the value store from offset (or returned in values
# without a store), and its round medians (rounds) into the store from
# round_offset where one is given (rounds TRUE; round_slots says where
# each goes), else returned as a list. A clean results file is read and reduced in C
# (analyze/native/results_file.c: its times correctly rounded, where fread
# may differ in the last bit); any other by read_results, which says what
# is wrong with it.
reduce_run <- function(run, archive, nrep = nrep_of_id(archive$experiments), store = NULL, offset = 0,
                       blocks = blocks_of_id(archive$experiments), round_offset = NULL) {
  file <- file.path(archive$dir, "results", paste0(run$run_id, ".results.csv"))
  m <- call_native("nbh_read_run_medians", file, nrep, blocks, store, offset, round_offset)
  if (is.null(m)) {
    x <- read_results(file, run$run_id, archive$experiments, run$state)
    rounds <- if (!is.null(x$round)) round_summary(x$id, x$round, x$seconds)
    m <- run_summary(x$id, x$seconds, store, offset)
    m$rounds <- rounds
    if (!nrow(x)) return(m)
  }
  # An adaptive campaign's later rounds hold only some experiments (runs.csv experiments_total).
  total <- if (is.null(run$total) || is.na(run$total)) nrow(archive$experiments) else run$total
  report_coverage(run, length(m$id), total)
  m
}

# Element id + 1: the rounds (blocks) of experiment id, 1 where there is
# none or the archive was made before the interleaved rounds.
blocks_of_id <- function(experiments) {
  blocks <- rep(1L, max(experiments$id, 0L) + 1L)
  if (!is.null(experiments$blocks)) blocks[experiments$id + 1L] <- fcoalesce(as.integer(experiments$blocks), 1L)
  blocks
}

# Element id + 1: the nrep of experiment id, 0 where there is none.
nrep_of_id <- function(experiments) {
  nrep <- integer(max(experiments$id, 0L) + 1L)
  nrep[experiments$id + 1L] <- as.integer(experiments$nrep)
  nrep
}

# lapply(x, f) in forked workers (one per core), this process being one of
# them: cores - 1 forks and this process take the items from a shared queue
# (analyze/native/work_queue.c), each the next one when it is free, so that
# a slow or busy core holds up no one; without the queue each takes every
# cores-th item. A worker's warnings are raised again here, in the order of
# x, and its errors stop the analysis. meanwhile, a function, is run here
# first, while the forks begin (its warnings and errors are this process's).
# first: the order in which the items are taken (the longest first, so that
# the workers end together); the values and warnings keep the order of x.
map_in_workers <- function(x, f, cores = analysis_cores(), meanwhile = NULL, first = seq_along(x)) {
  one <- function(item) {
    notes <- character()
    value <- tryCatch(withCallingHandlers(f(item), warning = function(w) {
      notes <<- c(notes, conditionMessage(w))
      invokeRestart("muffleWarning")
    }), error = function(e) structure(list(condition = e), class = "nbh_failed"))
    list(value = value, notes = notes)
  }
  workers <- min(cores, length(x))
  out <- if (workers > 1L) {
    in_workers(x, one, workers, meanwhile, first)
  } else {
    if (!is.null(meanwhile)) meanwhile()
    lapply(x, one)
  }
  lapply(out, function(o) {
    for (note in o$notes) nbh_warning(note)
    if (inherits(o$value, "nbh_failed")) stop(o$value$condition)
    o$value
  })
}

# list(one(x[[1]]), ...) from this process and workers - 1 forks, which
# take the items in the order FIRST.
in_workers <- function(x, one, workers, meanwhile = NULL, first = seq_along(x)) {
  queue <- call_native("nbh_queue_new")
  shares <- split(first, rep_len(seq_len(workers), length(x)))
  # Each worker's part: list(items, results).
  part <- function(k) {
    if (is.null(queue)) return(list(items = shares[[k]], results = lapply(x[shares[[k]]], one)))
    items <- integer()
    results <- list()
    while ((i <- call_native("nbh_queue_take", queue)) <= length(x)) {
      items <- c(items, first[i])
      results[[length(results) + 1L]] <- one(x[[first[i]]])
    }
    list(items = items, results = results)
  }
  forks <- lapply(seq_len(workers)[-1L], function(k) parallel::mcparallel(part(k), silent = FALSE))
  collected <- FALSE
  on.exit(if (!collected) stop_forks(forks))   # an interrupt or error leaves no fork behind
  if (!is.null(meanwhile)) meanwhile()
  parts <- c(list(part(1L)), parallel::mccollect(forks))
  collected <- TRUE
  out <- vector("list", length(x))
  for (p in parts) {
    if (inherits(p, "try-error")) stop("an analysis worker failed: ", conditionMessage(attr(p, "condition")))
    out[p$items] <- p$results
  }
  if (any(vapply(out, is.null, TRUE))) stop("an analysis worker ended without its results")
  out
}

# f() in a forked worker while this process goes on (at once, here, where
# there is one core). Returns wait(cancel = FALSE): the value of f(), its
# error raised here; with cancel, stops the worker if it still runs. f's
# warnings are lost: give it work that warns of nothing.
in_background <- function(f, cores = analysis_cores()) {
  if (cores < 2L) {
    value <- f()
    return(function(cancel = FALSE) value)
  }
  job <- parallel::mcparallel(f(), silent = FALSE)
  done <- FALSE
  function(cancel = FALSE) {
    if (done) return(invisible())
    done <<- TRUE
    if (cancel) return(stop_forks(list(job)))
    out <- parallel::mccollect(job)[[1]]
    if (inherits(out, "try-error")) stop(attr(out, "condition"))
    if (is.null(out)) stop("an analysis worker ended without its results")
    out
  }
}

stop_forks <- function(forks) {
  tools::pskill(vapply(forks, function(job) job$pid, 0L))
  suppressWarnings(parallel::mccollect(forks))
  invisible()
}

analysis_cores <- function() {
  cores <- suppressWarnings(as.integer(Sys.getenv("NBH_ANALYZE_CORES", "")))
  if (is.na(cores)) cores <- detected_cores()
  if (is.na(cores) || .Platform$OS.type != "unix") 1L else max(cores, 1L)
}

# parallel::detectCores, asked once per process: it runs a shell pipeline,
# and each system() call forks this process, which is large once the runs
# are read (some 10 ms each).
detected_cores <- local({
  known <- NULL
  function() {
    if (is.null(known)) known <<- parallel::detectCores(logical = FALSE)
    known
  }
})

# One warning for a run whose results do not cover all its experiments, or
# whose state says it did not end well.
report_coverage <- function(run, done, total) {
  if (done == 0L) return(invisible())   # read_results has said why
  if (done < total) {
    nbh_warning("run ", run$run_id, ": results for ", done, " of ", total, " experiments (state ",
                run$state, "); analysed with what it has")
  } else if (!identical(run$state, "done")) {
    nbh_warning("run ", run$run_id, ": state is ", run$state, " although every experiment has results")
  }
}

warn_unlisted_results <- function(archives) {
  for (a in archives) {
    files <- list.files(file.path(a$dir, "results"), pattern = "\\.results\\.csv$")
    extra <- setdiff(sub("\\.results\\.csv$", "", files), c(a$runs$run_id, a$damaged_runs, a$left_out))
    if (length(extra)) {
      nbh_warning(a$dir, ": results of run(s) ", format_list(extra), " are not in runs.csv; ignored")
    }
  }
}
