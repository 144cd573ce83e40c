# Tail latencies in the outputs (analyze/reduce/percentiles.R):
# percentiles.csv, every cell with its parameters, the median of its run
# medians (what the guidelines compare) and numpy's 50th, 90th and 99th
# percentile of every repetition of every run, and of those the Tukey
# filter kept; and the report's section: per context and operation, how far
# the tail reaches beyond the median, and which guidelines were assessed on
# a run percentile (`statistic = p99`) instead of the run median.

# One row per cell; times in microseconds.
percentile_table <- function(result) {
  p <- result$percentiles
  if (is.null(p) || !nrow(p)) return(data.table())
  params <- result$params$name
  medians <- result$medians[, .(median = median(median)), keyby = cell]
  out <- cbind(result$frame$cells[p$cell, params, with = FALSE],
               p[, .(runs, median_us = medians[J(p$cell), median] * 1e6, p50_us = p50 * 1e6, p90_us = p90 * 1e6,
                     p99_us = p99 * 1e6, count, p50_kept_us = p50_kept * 1e6, p90_kept_us = p90_kept * 1e6,
                     p99_kept_us = p99_kept * 1e6, count_kept)])
  out[]
}

# Per context and operation: cells, the median P50 and P99 over the
# median of run medians, and the cell whose P99 reaches furthest.
tail_summary <- function(pt) {
  x <- copy(pt)[, `:=`(p50_ratio = p50_us / median_us, p99_ratio = p99_us / median_us)]
  x[, where := sprintf("%s msize=%s", fcoalesce(as.character(graph), as.character(topology), ""),
                       fcoalesce(as.character(msize), ""))]
  x[order(-p99_ratio), .(cells = .N, median_p50_ratio = median(p50_ratio), median_p99_ratio = median(p99_ratio),
                         largest_p99_ratio = p99_ratio[1], largest_at = where[1], largest_p99_us = p99_us[1]),
    keyby = .(library, param_set, deployment, nprocs, op)][, nprocs := NULL][]
}

tail_latency_blocks <- function(result, settings) {
  pt <- result$percentile_rows %||% percentile_table(result)
  if (!nrow(pt)) return(list())
  s <- tail_summary(pt)
  several <- uniqueN(s$param_set) > 1L
  blocks <- list(
    heading("Tail latencies"),
    paragraph("Per cell, numpy's percentiles (method \"linear\", R's quantile type 7) of the time of every ",
              "repetition of every run (each the slowest process's), beside the median of run medians the ",
              "guidelines compare; with and without the Tukey step in `percentiles.csv`. Here per context and ",
              "operation: the median over its cells of P50 / median and of P99 / median, and the cell whose P99 ",
              "reaches furthest. The focus plots mark each run's P99 (x)."),
    table_block(s[, .(library, `parameter set` = if (several) param_set else NULL, deployment, op, cells,
                      `P50 / median` = sprintf("%.2f", median_p50_ratio),
                      `P99 / median` = sprintf("%.2f", median_p99_ratio),
                      `largest P99 / median` = sprintf("%.2f", largest_p99_ratio), at = largest_at,
                      `its P99 (µs)` = sprintf("%.4g", largest_p99_us))]))
  on_tail <- Filter(function(g) !identical(g$statistic %||% "median", "median"), result$guidelines)
  if (length(on_tail)) {
    x <- rbindlist(lapply(on_tail, function(g) data.table(guideline = tagged(g$tag, g$text), set = g$set,
                                                          statistic = g$statistic)))
    blocks <- c(blocks, list(
      paragraph("Assessed on a run percentile (`statistic` in the assessment): each run's value is numpy's ",
                "percentile of all its repetitions (no Tukey step: the tail is what is compared), the test and ",
                "ratio as for run medians (`tests.csv`: column `statistic`; `median_a_us` is then the median ",
                "of the runs' percentiles)."),
      table_block(x)))
  }
  blocks
}
