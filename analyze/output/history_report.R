# `analyze --history DB` (docs/history.md): the analysis goes into the
# results history before its report is written, and the report gets a
# section *History* from what the history says of it. The history is
# Python's (history/): `python -m history fragment` adds the staged
# analysis (its cells.csv, run_medians.csv, archives.csv and tests.csv) and
# writes beside them history.json (the entry, the series' length, the
# methods, the entry's common shift), history_departures.csv (the online
# test of every cell: does this entry depart from the recent history?),
# history_violations.csv (each violated test: since when, the trend of
# both sides), history_changes.csv (the offline change points of the cells
# this analysis measured) and history.html (the history's page).
# A history that refuses the analysis (an archive an entry holds with
# others, an unreadable database) does not stop the report: the section
# says why, and analyze exits 2 after writing everything.

# Runs the history's fragment on the staged analysis DIR; NULL without
# --history; list(refused = LINE) when the history refused it.
history_fragment <- function(settings, dir) {
  if (is.null(settings$history)) return(NULL)
  python <- Sys.getenv("NBH_PYTHON", file.path(Sys.getenv("NBH_ROOT", "."), ".venv", "bin", "python"))
  err <- tempfile("history-")
  on.exit(unlink(err))
  # R's LD_LIBRARY_PATH (its own and the system's libraries first) would
  # give the project's Python the system's libpython: Python runs without it.
  status <- system2("env", c("-u", "LD_LIBRARY_PATH", shQuote(python), "-m", "history", "fragment",
                              "--db", shQuote(settings$history),
                              "--by", settings$history_by %||% "date", shQuote(dir)),
                    stdout = FALSE, stderr = err)
  said <- readLines(err, warn = FALSE)
  said <- sub("^nbhbench: ", "", said[nzchar(said)])
  if (status != 0L) {
    return(list(refused = paste0("--history: ", if (length(said)) said[length(said)]
                                                else sprintf("the history failed (exit %d)", status)),
                status = status))
  }
  for (line in said) message("nbhbench: ", line)
  read <- function(name) {
    file <- file.path(dir, name)
    if (file.exists(file)) fread(file, colClasses = "character", na.strings = "") else data.table()
  }
  list(info = jsonlite::fromJSON(file.path(dir, "history.json"), simplifyVector = TRUE),
       departures = read("history_departures.csv"), violations = read("history_violations.csv"),
       changes = read("history_changes.csv"))
}

# "1.17x slower (1.05-1.31)" of a ratio and its interval.
ratio_words <- function(ratio, low, high) {
  slower <- ratio >= 1
  size <- ifelse(slower, ratio, 1 / ratio)
  from <- ifelse(slower, low, 1 / high)
  to <- ifelse(slower, high, 1 / low)
  sprintf("%.3gx %s (95 %% interval %.3g-%.3g)", size, ifelse(slower, "slower", "faster"), from, to)
}

history_blocks <- function(history) {
  if (is.null(history)) return(list())
  if (!is.null(history$refused)) {
    return(list(heading("History"),
                paragraph("The history refused this analysis, so nothing was added to it and nothing is said ",
                          "about its series: ", history$refused, ".")))
  }
  info <- history$info
  d <- history$departures
  v <- history$violations
  ch <- history$changes
  blocks <- list(heading("History"),
    paragraph(sprintf("This analysis is entry %s of the history `%s` (%s entries, ordered by %s). ",
                      info$entry, info$database, info$entries, info$order),
              if (isTRUE(info$already)) "Its archives were in it already: nothing was added. ",
              "The history's page, with the verdicts over time and a trend per cell: `history.html`."),
    heading("Does this entry depart from the recent history?", 3L),
    paragraph("Method: ", info$online, "."))
  departs <- if (nrow(d)) d[status == "departs"] else d
  blocks <- c(blocks, list(paragraph(sprintf(
    "Of its %d cells, %d depart from their recent history, %d are consistent with it, and %d have too few entries before this one to say (fewer than %d).",
    as.integer(info$cells), as.integer(info$departs), as.integer(info$consistent), as.integer(info$too_few),
    as.integer(info$min_earlier)))))
  common <- info$common
  if (!is.null(common) && !is.null(common$ratio)) {
    blocks <- c(blocks, list(paragraph(sprintf(
      "Every cell of this entry together (their common shift) is %s against the %d entries before it (t = %.3g, p = %.3g)%s. A shift of every cell at once cannot be told from a change of the machine's speed while the campaign ran; it is shown, and --fail-on-change does not fail on it.",
      ratio_words(common$ratio, common$ratio_low, common$ratio_high), as.integer(common$earlier), common$t, common$p,
      if (identical(common$status, "shifted")) ": shifted" else ""))))
  }
  if (nrow(departs)) {
    shown <- departs[, .(context = paste(campaign, library, param_set, deployment, op), cell, earlier,
                         baseline_from, baseline_us, entry_us, ratio, ratio_low, ratio_high, p, p_adjusted)]
    blocks <- c(blocks, bounded_table(shown, "cells that depart", "history_departures.csv",
                                      explore = "history-departures"))
  }
  blocks <- c(blocks, list(heading("Since when each violation stands", 3L)))
  if (nrow(v)) {
    blocks <- c(blocks, list(
      paragraph("Each violated test of this analysis: the first entry of its latest unbroken run of violations ",
                "in the history, how many entries that run has, and the medians of both sides (µs) over the ",
                "last entries that measured them, oldest first.")),
      bounded_table(v, "violated tests", "history_violations.csv", explore = "history-violations"))
  } else {
    blocks <- c(blocks, list(paragraph("No test of this analysis is violated.")))
  }
  blocks <- c(blocks, list(heading("Change points of its cells' series", 3L), paragraph("Method: ", info$offline, ".")))
  if (nrow(ch)) {
    here <- sum(ch$begins_here == "yes")
    blocks <- c(blocks, list(
      paragraph(sprintf("%d change point(s) in the series of the cells this analysis measured; %d begin with this analysis. ",
                        nrow(ch), here),
                "A change point needs entries on both of its sides: one at the newest entries rests on few of them ",
                "(their numbers are in the table), and the next entries confirm it or take it back.")),
      bounded_table(ch[, !c("line", "begins_here")], "change points", "history_changes.csv", explore = "history-changes"))
  } else {
    blocks <- c(blocks, list(paragraph("No change point in the series of the cells this analysis measured.")))
  }
  blocks
}

# The lines of the cells that depart from their recent history with this
# analysis (--fail-on-change).
history_change_lines <- function(history) {
  if (is.null(history) || !is.null(history$refused) || !nrow(history$departures)) return(character())
  history$departures[status == "departs", line]
}

# The history's refusal (a line), or NULL.
history_refusal <- function(history) if (is.null(history)) NULL else history$refused

# The report's blocks with the History section placed before the provenance.
with_history_blocks <- function(blocks, section) {
  if (!length(section)) return(blocks)
  at <- which(vapply(blocks, function(b) identical(b$kind, "heading") && identical(b$level, 2L) &&
                       identical(b$text, "Provenance"), logical(1)))
  at <- if (length(at)) at[1] - 1L else length(blocks)
  append(blocks, section, after = at)
}
