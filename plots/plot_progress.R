# The progress line while an analysis's plots render (render_plot_sets):
#   nbhbench: plots: 7 of 15 drawn in 4.2 s, slowest so far 1.3 s (focus-02-GL7-g001-t0003)
# on stderr when it is a terminal, rewritten in place after every plot by
# whichever worker finished it (the count and the slowest are shared by
# the forked workers: analyze/native/progress_tally.c); the last line ends
# with a newline and stays. Elsewhere (a pipe, a log, the tests) it
# prints nothing: stderr there is for warnings and the one line of an
# error.

# A function(item, seconds) that counts item (an index into files) as
# drawn in `seconds` and shows the line. out: where it goes (a connection,
# or a file name, appended to by each line whole); terminal: whether to
# show it.
plot_progress <- function(files, out = stderr(), terminal = is.character(out) || isatty(out)) {
  if (!terminal || !length(files)) return(function(item, seconds) invisible(NULL))
  tally <- call_native("nbh_tally_new")
  started <- proc.time()[["elapsed"]]
  # Without shared memory (or the native library) each process counts its own.
  own <- list(done = 0L, slowest = -1, item = 0L)
  function(item, seconds) {
    now <- if (!is.null(tally)) call_native("nbh_tally_add", tally, item, seconds) else {
      own$done <<- own$done + 1L
      if (seconds > own$slowest) own[c("slowest", "item")] <<- list(seconds, item)
      c(own$done, own$slowest, own$item)
    }
    line <- plot_progress_line(now[[1]], length(files), proc.time()[["elapsed"]] - started, now[[2]],
                               files[[now[[3]]]])
    text <- paste0("\r\033[K", line, if (now[[1]] >= length(files)) "\n")
    show_status(text, out)
    invisible(NULL)
  }
}

plot_progress_line <- function(done, total, elapsed, slowest, slowest_file) {
  sprintf("nbhbench: plots: %d of %d drawn in %.1f s, slowest so far %.1f s (%s)", as.integer(done),
          as.integer(total), elapsed, slowest, slowest_file)
}
