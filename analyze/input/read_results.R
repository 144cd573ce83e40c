# Reads results/RUN.results.csv of one run (docs/archive.md:
# id,rep,round,seconds,work_seconds, with delay_seconds after it for inputs
# with an arrival pattern; from kernels before the interleaved rounds
# id,rep,seconds,work_seconds[,delay_seconds], and before the measured busy
# work id,rep,seconds; nrep rows for every complete experiment) and keeps
# only what can be trusted: a line cut off at the end of the file (no
# newline) is dropped, rows that are not an integer id (and round), a
# positive finite time and (where the file has the columns) a finite busy
# work and delay time >= 0 are dropped, as the archive's row check rejects
# them (workflow/result_rows.py), and an incomplete experiment is dropped:
# without rounds one with another number of rows than its nrep; with
# rounds one that lacks a round 1..blocks, and one whose round has another
# number of rows than its share of nrep (nrep / blocks, the first nrep mod
# blocks rounds one more: kernel/rounds.c; a clock start, sync = clock,
# may keep fewer: the archive checked those against the kernel's count).
# Each loss is a warning naming the run; a missing or
# empty file is a run without results. Returns data.table(id, seconds), and
# round where the file has it.

read_results <- function(file, run_id, experiments, state = NULL) {
  none <- data.table(id = integer(), seconds = numeric())
  if (!file.exists(file)) {
    nbh_warning("run ", run_id, ": no results file (", file, if (!is.null(state)) paste0("; state ", state),
                "); analysed without this run")
    return(none)
  }
  size <- file.size(file)
  if (size == 0) {
    nbh_warning("run ", run_id, ": results file ", file, " is empty; analysed without this run")
    return(none)
  }
  input <- list(file = file)
  if (!ends_with_newline(file, size)) {
    # A line without its newline may be cut inside a number (1.2e-05 -> 1.2).
    bytes <- readBin(file, "raw", size)
    newlines <- which(bytes == as.raw(10L))
    nbh_warning("run ", run_id, ": results file ", file, " ends in a cut line; that line is left out")
    if (!length(newlines)) return(none)
    input <- list(text = rawToChar(bytes[seq_len(max(newlines))]))
  }
  header <- readLines(file, n = 1L, warn = FALSE)
  rounded <- startsWith(header, "id,rep,round,")
  unrounded <- sub("^id,rep,round,", "id,rep,", header)
  measured <- if (identical(unrounded, "id,rep,seconds,work_seconds")) "work_seconds"
              else if (identical(unrounded, "id,rep,seconds,work_seconds,delay_seconds")) c("work_seconds", "delay_seconds")
              else character()
  columns <- c("id", if (rounded) "round", "seconds", measured)
  notes <- character()
  x <- tryCatch(
    withCallingHandlers(
      do.call(fread, c(input, list(select = columns, fill = TRUE, na.strings = c("", "NA"),
                                   colClasses = c(id = "integer", round = "integer", seconds = "double",
                                                  work_seconds = "double", delay_seconds = "double")[columns]))),
      warning = function(w) {
        notes <<- c(notes, conditionMessage(w))
        invokeRestart("muffleWarning")
      }),
    error = function(e) {
      nbh_warning("run ", run_id, ": results file ", file, " cannot be read (", conditionMessage(e),
                  "); analysed without this run")
      NULL
    })
  if (is.null(x)) return(none)
  for (col in intersect(c("id", "round"), columns)) {
    if (!is.integer(x[[col]])) set(x, j = col, value = suppressWarnings(as.integer(x[[col]])))
  }
  for (col in setdiff(columns, c("id", "round"))) {
    if (!is.double(x[[col]])) set(x, j = col, value = suppressWarnings(as.numeric(x[[col]])))
  }
  # The busy work and the delay may be 0 (none); the operation's time may not.
  bad_measured <- rep(FALSE, nrow(x))
  for (col in measured) bad_measured <- bad_measured | !is.finite(x[[col]]) | x[[col]] < 0
  bad_round <- if (rounded) is.na(x$round) | x$round < 1L else rep(FALSE, nrow(x))
  clean <- !length(notes) && nrow(x) && !anyNA(x$id) && !anyNA(x$seconds) && min(x$seconds) > 0 &&
    max(x$seconds) < Inf && !any(bad_measured) && !any(bad_round)
  if (!clean && nrow(x)) {
    bad <- is.na(x$id) | !is.finite(x$seconds) | x$seconds <= 0 | bad_measured | bad_round
    nbh_warning("run ", run_id, ": results file ", file, " has ", sum(bad), " malformed row(s)",
                if (length(notes)) paste0(" (", notes[1], ")"), "; they are left out")
    x <- x[!bad]
  }
  if (length(measured)) set(x, j = measured, value = NULL)
  complete_experiments(x, run_id, experiments)
}

ends_with_newline <- function(file, size) {
  con <- file(file, "rb")
  on.exit(close(con))
  seek(con, size - 1)
  identical(readBin(con, "raw", 1L), as.raw(10L))
}

# Keeps the complete experiments: without rounds those with exactly nrep
# rows; with rounds those with rows in every round 1..blocks and at most
# nrep rows.
complete_experiments <- function(x, run_id, experiments) {
  if (!nrow(x)) return(x)
  max_id <- max(x$id, experiments$id)
  rows <- tabulate(x$id + 1L, max_id + 1L)
  nrep <- integer(max_id + 1L)
  nrep[experiments$id + 1L] <- experiments$nrep
  known <- rows > 0L & nrep > 0L
  if (!is.null(x$round)) {
    return(complete_rounds(x, run_id, rows, nrep, known, blocks_of_id(experiments), clock_of_id(experiments)))
  }
  unknown <- which(rows > 0L & nrep == 0L) - 1L
  wrong <- which(known & rows != nrep) - 1L
  if (length(unknown)) {
    nbh_warning("run ", run_id, ": rows of experiment id(s) ", format_list(unknown),
                " that experiments.csv does not have; left out")
  }
  if (length(wrong)) {
    nbh_warning("run ", run_id, ": experiment(s) ", format_list(wrong),
                " have another number of rows than their nrep; left out")
  }
  if (!length(unknown) && !length(wrong)) return(x)
  keep <- known & rows == nrep
  x[keep[id + 1L]]
}

# complete_experiments of a file with rounds. clock: element id + 1 TRUE
# where the experiment starts on the clock (it may keep fewer rows).
complete_rounds <- function(x, run_id, rows, nrep, known, blocks, clock = logical()) {
  unknown <- which(rows > 0L & nrep == 0L) - 1L
  if (length(unknown)) {
    nbh_warning("run ", run_id, ": rows of experiment id(s) ", format_list(unknown),
                " that experiments.csv does not have; left out")
  }
  blocks <- c(blocks, rep(1L, max(0L, length(nrep) - length(blocks))))
  clock <- c(clock, rep(FALSE, max(0L, length(nrep) - length(clock))))
  beyond <- x$round > blocks[x$id + 1L]
  counts <- x[!beyond & known[id + 1L], .N, keyby = .(id, round)]
  rounds <- counts[, .(n = .N), keyby = id]
  whole <- rep(FALSE, length(nrep))
  whole[rounds$id + 1L] <- rounds$n == blocks[rounds$id + 1L]
  whole <- whole & known & !tabulate(x$id[beyond] + 1L, length(nrep))
  # Each round its share of nrep (kernel/rounds.c); fewer only on the clock.
  k <- counts$id + 1L
  share <- nrep[k] %/% blocks[k] + (counts$round - 1L < nrep[k] %% blocks[k])
  miscounted <- rep(FALSE, length(nrep))
  miscounted[unique(k[counts$N > share | (counts$N < share & !clock[k])])] <- TRUE
  wrong <- which(known & !whole) - 1L
  if (length(wrong)) {
    nbh_warning("run ", run_id, ": experiment(s) ", format_list(wrong),
                " lack a round of their blocks or have rows beyond them; left out")
  }
  counted <- which(whole & miscounted) - 1L
  if (length(counted)) {
    first <- counted[1] + 1L
    nbh_warning("run ", run_id, ": experiment(s) ", format_list(counted),
                " have another number of rows than their nrep in experiments.csv (experiment ", first - 1L, ": ",
                rows[first], " rows for nrep ", nrep[first], " in ", blocks[first], " round(s)); left out")
  }
  if (!length(unknown) && !length(wrong) && !length(counted)) return(x)
  whole <- whole & !miscounted
  x[whole[id + 1L]]
}

# Element id + 1: TRUE where experiment id starts its repetitions on the
# clock (sync = clock: a round may keep fewer rows than its share).
clock_of_id <- function(experiments) {
  clock <- rep(FALSE, max(experiments$id, 0L) + 1L)
  if (!is.null(experiments$sync)) clock[experiments$id + 1L] <- experiments$sync %in% "clock"
  clock
}
