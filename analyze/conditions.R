# Conditions of the analyzer. Bad input (an archive or assessment that does
# not follow docs/archive.md or docs/assessment.md) stops with an
# nbh_input_error: main.R prints its message as one line and exits 2. An
# output that cannot be written is an nbh_output_error (exit 4); an --out
# folder that holds something else than an earlier analysis is an
# nbh_foreign_out_error (exit 6: nothing there is replaced). Warnings
# (a run without results, a cut results file) are ordinary R warnings: the
# analysis goes on, and main.R prints them and lists them in the report.

input_error <- function(...) {
  stop(errorCondition(paste0(...), class = "nbh_input_error", call = NULL))
}

output_error <- function(...) {
  stop(errorCondition(paste0(...), class = "nbh_output_error", call = NULL))
}

foreign_out_error <- function(...) {
  stop(errorCondition(paste0(...), class = "nbh_foreign_out_error", call = NULL))
}

nbh_warning <- function(...) {
  warning(warningCondition(paste0(...), class = "nbh_warning", call = NULL))
}

# "a, b, c" with at most `max` items and a count of the rest.
format_list <- function(x, max = 5L) {
  x <- as.character(x)
  if (length(x) <= max) return(paste(x, collapse = ", "))
  sprintf("%s and %d more", paste(x[seq_len(max)], collapse = ", "), length(x) - max)
}
