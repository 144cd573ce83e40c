# What a long analysis is at: one line on stdout per phase, with the time
# since the analysis began ("analyze: 12.3 s: assessing 6 guidelines"),
# flushed at once so that a pipe sees it too. Only `nbhbench analyze`
# (main.R, progress_begin) prints them; the adaptive look and the tests do
# not. The plots' own progress line comes between "drawing ..." and
# "writing the report".

progress_begin <- function() options(nbh.progress_start = proc.time()[["elapsed"]])

progress <- function(...) {
  start <- getOption("nbh.progress_start")
  if (is.null(start)) return(invisible(NULL))
  cat(sprintf("analyze: %.1f s: %s\n", proc.time()[["elapsed"]] - start, paste0(...)))
  flush(stdout())
  invisible(NULL)
}
