# The order in which each round of a run was measured (docs/archive.md,
# results/RUN.order.csv: round, attempt, position, id; the archive keeps it
# from the kernel's rows, which it writes in the order it measures), read
# run by run like the results: for the analyses that ask where in its round
# a cell was measured (drift within a round). No statistic reads it yet;
# archives made before it give none.

ORDER_COLUMNS <- c(id = "integer", round = "integer", attempt = "integer", position = "integer")

# data.table(cell, run, round, attempt, position), keyed by cell, run and
# round: for every (cell, run) with run medians, each round's attempt and
# its place in that attempt's measured order of the round (1: first).
read_round_orders <- function(archives, frame, medians) {
  x <- read_run_tables(archives, frame, medians, ".order.csv", ORDER_COLUMNS)
  if (is.null(x)) {
    return(data.table(cell = integer(), run = integer(), round = integer(), attempt = integer(),
                      position = integer(), key = c("cell", "run", "round")))
  }
  bad <- x[is.na(round) | is.na(attempt) | is.na(position) | round < 1L | position < 1L, .N]
  if (bad) {
    nbh_warning(bad, " row(s) of results/RUN.order.csv are not a round, an attempt and a position; left out")
    x <- x[!is.na(round) & !is.na(attempt) & !is.na(position) & round >= 1L & position >= 1L]
  }
  x <- x[, .(cell, run, round, attempt, position)]
  setkeyv(x, c("cell", "run", "round"))
  x[]
}
