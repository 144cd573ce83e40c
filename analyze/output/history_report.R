# `analyze --history DB` (docs/history.md): the analysis goes into the
# results history before its report is written, and the report gets a
# section *History* from what the history says of it. The history is
# Python's (history/): `python -m history fragment` adds the staged
# analysis (its cells.csv, run_medians.csv, archives.csv and tests.csv) and
# writes beside them history.json (the entry, the series' length, the
# method), history_violations.csv (each violated test: since when, the
# trend of both sides), history_changes.csv (every change point of the
# cells this analysis measured, one line each) and history.html (the
# history's page).

# Runs the history's fragment on the staged analysis DIR; NULL without
# --history. A refusal (a damaged archive, an unreadable database) is an
# input error with the history's own line.
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
  if (status != 0L) {
    said <- readLines(err, warn = FALSE)
    said <- sub("^nbhbench: ", "", said[nzchar(said)])
    input_error("--history: ", if (length(said)) said[length(said)] else sprintf("the history failed (exit %d)", status))
  }
  read <- function(name) {
    file <- file.path(dir, name)
    if (file.exists(file)) fread(file, colClasses = "character", na.strings = "") else data.table()
  }
  list(info = jsonlite::fromJSON(file.path(dir, "history.json"), simplifyVector = TRUE),
       violations = read("history_violations.csv"), changes = read("history_changes.csv"))
}

history_blocks <- function(history) {
  if (is.null(history)) return(list())
  info <- history$info
  v <- history$violations
  ch <- history$changes
  blocks <- list(heading("History"),
    paragraph(sprintf("This analysis is entry %s of the history `%s` (%s entries, ordered by %s). ",
                      info$entry, info$database, info$entries, info$order),
              if (isTRUE(info$already)) "Its archives were in it already: nothing was added. ",
              "The history's page, with the verdicts over time and a trend per cell: `history.html`."),
    paragraph("Change points: ", info$method),
    heading("Since when each violation stands", 3L))
  if (nrow(v)) {
    blocks <- c(blocks, list(
      paragraph("Each violated test of this analysis: the first entry of its latest unbroken run of violations ",
                "in the history, how many entries that run has, and the medians of both sides (µs) over the ",
                "last entries that measured them, oldest first.")),
      bounded_table(v, "violated tests", "history_violations.csv", explore = "history-violations"))
  } else {
    blocks <- c(blocks, list(paragraph("No test of this analysis is violated.")))
  }
  blocks <- c(blocks, list(heading("Cells that changed", 3L)))
  if (nrow(ch)) {
    here <- sum(ch$begins_here == "yes")
    blocks <- c(blocks, list(
      paragraph(sprintf("%d change point(s) in the series of the cells this analysis measured; %d begin with this analysis. ",
                        nrow(ch), here),
                "A change that begins at the newest entry rests on it alone: the next entries confirm it or take it back.")),
      bounded_table(ch[, !c("line", "begins_here")], "change points", "history_changes.csv", explore = "history-changes"))
  } else {
    blocks <- c(blocks, list(paragraph("No change point in the series of the cells this analysis measured.")))
  }
  blocks
}

# The lines of the changes that begin with this analysis (--fail-on-change).
history_change_lines <- function(history) {
  if (is.null(history) || !nrow(history$changes)) return(character())
  history$changes[begins_here == "yes", line]
}

# The report's blocks with the History section placed before the provenance.
with_history_blocks <- function(blocks, section) {
  if (!length(section)) return(blocks)
  at <- which(vapply(blocks, function(b) identical(b$kind, "heading") && identical(b$level, 2L) &&
                       identical(b$text, "Provenance"), logical(1)))
  at <- if (length(at)) at[1] - 1L else length(blocks)
  append(blocks, section, after = at)
}
