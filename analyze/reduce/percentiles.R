# Tail latencies (issue 22): per cell, the 50th, 90th and 99th percentile
# of the times of every repetition of every run (n_runs x nrep times), and
# of those the Tukey filter kept in each run, beside the median of run
# medians the guidelines compare. What an application feels is the slowest
# process's time of each exchange, and its tail is what a median hides.
#
# The percentile is numpy's default, numpy.percentile(x, q) with method
# "linear" (R's quantile type 7), computed the way numpy computes it, so
# that the values are numpy's bit for bit (tests/analyze/test_percentiles.py
# checks them against numpy on the same data): with the n values sorted,
# v = (n - 1) (q / 100), i = floor(v), g = v - i, a = x[i + 1], b = x[i + 2]
# (1-based); the largest value when v >= n - 1; else a + (b - a) g, or
# b - (b - a)(1 - g) when g >= 0.5 (numpy's _lerp).
#
# The times come from the pass that reduces each run (reduce_runs: each
# run's times sorted, in the value store its workers share); the cells'
# percentiles are one more pass over them in C (analyze/native/
# cell_percentiles.c), by selection rather than sorting; in R where the C
# cannot be compiled.

TAIL_PERCENTS <- c(50, 90, 99)

# numpy.percentile(method = "linear") of each group of the sorted vector x
# (groups given by 0-based start and size n), as numpy computes it.
percentile_sorted <- function(x, start, n, percent) {
  v <- (n - 1) * (percent / 100)
  i <- floor(v)
  last <- v >= n - 1
  a <- x[start + pmin(i, n - 1) + 1]
  b <- x[start + pmin(i + 1, n - 1) + 1]
  g <- v - i
  d <- b - a
  out <- ifelse(g >= 0.5, b - d * (1 - g), a + d * g)
  out[last] <- x[(start + n)[last]]
  out[n < 1] <- NA_real_
  out
}

# Per cell of the run medians (reduce_runs: cell, at, n, below, n_kept; the
# values its attribute "values"), or of the cells first..last of
# `cells`: data.table(cell, runs, count, p50, p90, p99, count_kept,
# p50_kept, p90_kept, p99_kept), percentiles in seconds, count the number
# of times they are taken from.
cell_percentiles <- function(medians, values = attr(medians, "values"), cells = NULL) {
  if (!identical(key(medians)[1], "cell")) medians <- setkeyv(copy(medians), c("cell", "run"))
  m <- if (is.null(cells)) medians   # read, not changed: no copy
       else medians[cell >= cells[1] & cell <= cells[2], .(cell, at, n, below, n_kept)]
  sizes <- m[, .N, by = cell]
  out <- call_native("nbh_cell_percentiles", values, m$at, as.integer(m$n), as.integer(m$below),
                     as.integer(m$n_kept), sizes$N)
  if (is.null(out)) out <- cell_percentiles_r(m, values)
  setDT(out)
  out[, `:=`(cell = sizes$cell, runs = sizes$N)]
  setcolorder(out, c("cell", "runs"))
  setkey(out, cell)
  out[]
}

# The cells of the run medians in `parts` ranges of about equal numbers of
# rows: list(c(first, last), ...), for cell_percentiles in parallel.
percentile_parts <- function(medians, parts) {
  cells <- medians$cell
  if (!length(cells)) return(list())
  ends <- unique(cells[pmax(1L, round(seq_len(parts) * length(cells) / parts))])
  starts <- c(cells[1], head(ends, -1L) + 1L)
  lapply(seq_along(ends), function(i) c(starts[i], ends[i]))[starts <= ends]
}

# cell_percentiles in R: each cell's times gathered and sorted.
cell_percentiles_r <- function(m, values) {
  one <- function(keep) {
    from <- m$at + if (keep) m$below else 0
    length <- if (keep) m$n_kept else m$n
    x <- values[sequence(length, from + 1)]
    cell <- rep.int(m$cell, length)
    o <- order(cell, x, method = "radix")
    x <- x[o]
    count <- tabulate(match(cell, unique(m$cell)), length(unique(m$cell)))
    start <- cumsum(c(0, count))[seq_along(count)]
    c(list(count = as.integer(count)),
      setNames(lapply(TAIL_PERCENTS, function(q) percentile_sorted(x, start, count, q)), paste0("p", TAIL_PERCENTS)))
  }
  all <- one(FALSE)
  kept <- one(TRUE)
  names(kept) <- paste0(names(kept), "_kept")
  c(all, kept)
}

# A copy of the run medians whose `median` is the run statistic an
# assessment set asks for (parse_assessment: statistic = median, p90, p99):
# what assess_guideline compares.
run_statistic <- function(medians, statistic) {
  if (identical(statistic, "median")) return(medians)
  out <- medians[, .(cell, run, median = get(statistic), n, n_kept)]
  setkeyv(out, c("cell", "run"))
  out[]
}
