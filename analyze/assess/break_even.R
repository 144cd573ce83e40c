# Persistent break-even (issue 22): after how many repetitions does a
# persistent collective pay for its _init? Per persistent cell p
# (neighbor_x_init) and its blocking partner b (neighbor_x, every other
# parameter equal), from the _init time the kernel records
# (results/RUN.preparation.csv, init_seconds: the slowest process's) and
# the run medians of both:
#
#   per run r with all three, _init + k (Start + Wait) is cheaper than k
#   blocking calls when I_r + k p_r < k b_r, from k_r = I_r / (b_r - p_r)
#   on (infinite where p_r >= b_r: never); k* = floor(median of the k_r) + 1
#   repetitions, "never" when that median is infinite.
#
# Its interval: the distribution-free confidence interval of the same
# median, from the order statistics of the k_r, [k_(l), k_(n-l+1)] with the
# largest l such that 2 P(Binomial(n, 1/2) <= l - 1) <= 1 - level (level
# 0.95: 6 runs give l = 1, the smallest and largest); each bound counted as
# k* is (floor + 1), an infinite one "never"; none with fewer runs than that
# needs. k* and its bounds are order statistics of one set of k_r, so k*
# lies within them. A saving of a few nanoseconds gives a huge k_r: the
# saving b_r - p_r must be shown: the one-sided lower bound of its median
# (order statistics, the largest l with P(Binomial(n, 1/2) <= l - 1) <=
# 1 - level) above 0; where it is not (saving_shown FALSE) no k* is given
# (NA, never FALSE), whatever the median of the k_r.

# Every persistent cell with a blocking partner and _init times:
# data.table(cell, blocking_cell, runs, init_s, persistent_s, blocking_s,
# saving_s, break_even, break_even_low, break_even_high): break_even and
# its bounds are repetitions (NA: never; bounds NA: no interval), with
# `never`, `never_low`, `never_high` saying which NA is "never".
break_even <- function(archives, frame, medians, operations, level = 0.95) {
  persistent <- operations[persistent == "1", name]
  twins <- data.table(op = persistent, blocking = sub("_init$", "", persistent))
  cells <- frame$cells
  if (!any(cells$op %in% persistent)) return(no_break_even())
  init <- init_times(archives, frame)
  if (!nrow(init)) return(no_break_even())
  pairs <- blocking_partners(cells, twins)
  if (!nrow(pairs)) return(no_break_even())
  m <- medians[, .(cell, run, median)]
  p <- m[pairs[, .(pair, cell)], on = "cell", nomatch = NULL]
  b <- m[pairs[, .(pair, cell = blocking_cell)], on = "cell", nomatch = NULL]
  i <- init[pairs[, .(pair, cell)], on = "cell", nomatch = NULL]
  per_run <- p[b, on = c("pair", "run"), nomatch = NULL, .(pair, run, p = x.median, b = i.median)]
  per_run <- per_run[i, on = c("pair", "run"), nomatch = NULL, .(pair, run, p, b, init = i.init_seconds)]
  if (!nrow(per_run)) return(no_break_even())
  setorderv(per_run, c("pair", "run"))
  out <- per_run[, c(list(runs = .N, init_s = median(init), persistent_s = median(p), blocking_s = median(b),
                          saving_s = median(b - p), saving_shown = saving_shown(b - p, level),
                          k = median(fifelse(b > p, init / (b - p), Inf))),
                     break_even_interval(fifelse(b > p, init / (b - p), Inf), level)), keyby = pair]
  out[, `:=`(never = !is.finite(k), break_even = fifelse(is.finite(k) & saving_shown, floor(k) + 1, NA_real_))]
  out[, k := NULL]
  out <- pairs[out, on = "pair"]
  out[, pair := NULL]
  setcolorder(out, c("cell", "blocking_cell", "runs", "init_s", "persistent_s", "blocking_s", "saving_s",
                     "saving_shown", "break_even", "never", "break_even_low", "never_low", "break_even_high",
                     "never_high"))
  setkey(out, cell)
  out[]
}

no_break_even <- function() {
  data.table(cell = integer(), blocking_cell = integer(), runs = integer(), init_s = numeric(),
             persistent_s = numeric(), blocking_s = numeric(), saving_s = numeric(), saving_shown = logical(),
             break_even = numeric(),
             never = logical(), break_even_low = numeric(), never_low = logical(), break_even_high = numeric(),
             never_high = logical())
}

# Whether a saving is shown: the one-sided lower bound of the median of
# the per-run savings (its order statistic x_(l), the largest l with
# P(Binomial(n, 1/2) <= l - 1) <= 1 - level) is above 0.
saving_shown <- function(saving, level) {
  n <- length(saving)
  l <- seq_len(n)
  ok <- l[pbinom(l - 1L, n, 0.5) <= 1 - level]
  length(ok) > 0L && sort(saving)[max(ok)] > 0
}

# The interval of the median of the per-run break-evens k (Inf: never), as
# repetitions: list(break_even_low, never_low, break_even_high, never_high).
break_even_interval <- function(k, level) {
  n <- length(k)
  l <- order_statistic_bound(n, level)
  if (is.na(l)) return(list(break_even_low = NA_real_, never_low = FALSE, break_even_high = NA_real_,
                            never_high = FALSE))
  k <- sort(k)
  low <- k[l]
  high <- k[n - l + 1L]
  list(break_even_low = if (is.finite(low)) floor(low) + 1 else NA_real_, never_low = !is.finite(low),
       break_even_high = if (is.finite(high)) floor(high) + 1 else NA_real_, never_high = !is.finite(high))
}

# The largest l with 2 P(Binomial(n, 1/2) <= l - 1) <= 1 - level: [x_(l),
# x_(n - l + 1)] covers the median with at least that level; NA if none.
order_statistic_bound <- function(n, level) {
  if (n < 1L) return(NA_integer_)
  l <- seq_len((n + 1L) %/% 2L)
  ok <- l[2 * pbinom(l - 1L, n, 0.5) <= 1 - level]
  if (length(ok)) max(ok) else NA_integer_
}

# Each persistent cell with its blocking partner: the cell with the
# blocking twin as op and every other parameter equal. data.table(pair,
# cell, blocking_cell).
blocking_partners <- function(cells, twins) {
  params <- setdiff(names(cells), c("cell", "exp", "context", "op"))
  p <- cells[twins, on = "op", nomatch = NULL]
  p[, op := blocking]
  b <- cells[op %in% twins$blocking]
  # NA matches NA in a join (a parameter that does not apply to both).
  pairs <- b[p, on = c("op", params), nomatch = NULL, .(cell = i.cell, blocking_cell = x.cell)]
  setorderv(pairs, "cell")
  pairs[, pair := .I]
  setcolorder(pairs, "pair")
  pairs[]
}

# The _init time of every persistent experiment of every run:
# data.table(cell, run, init_seconds), from results/RUN.preparation.csv
# (a row per round where the run has interleaved rounds, each with its own
# _init: their median).
init_times <- function(archives, frame) {
  runs <- frame$runs
  rows <- rbindlist(lapply(seq_len(nrow(runs)), function(i) {
    file <- file.path(archives[[runs$archive[i]]]$dir, "results", paste0(runs$run_id[i], ".preparation.csv"))
    if (!file.exists(file)) return(NULL)
    x <- tryCatch(fread(file, select = c("id", "init_seconds"),
                        colClasses = c(id = "integer", init_seconds = "double")),
                  error = function(e) {
                    nbh_warning("run ", runs$run_id[i], ": ", file, " cannot be read (", conditionMessage(e),
                                "); its _init times are left out of the break-even")
                    NULL
                  })
    if (is.null(x)) return(NULL)
    x <- x[!is.na(id) & is.finite(init_seconds) & init_seconds >= 0]
    if (!nrow(x)) return(NULL)
    if (anyDuplicated(x$id)) x <- x[, .(init_seconds = median(init_seconds)), keyby = id]
    x[, `:=`(archive = runs$archive[i], context = runs$context[i], run = runs$run_key[i])]
  }))
  if (!nrow(rows)) return(data.table(cell = integer(), run = integer(), init_seconds = numeric()))
  rows <- frame$ids[, .(archive, id, exp)][rows, on = c("archive", "id"), nomatch = NULL]
  rows <- frame$cells[, .(exp, context, cell)][rows, on = c("exp", "context"), nomatch = NULL]
  rows[, .(cell, run, init_seconds)]
}
