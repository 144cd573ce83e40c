# What the results history (history/, `nbhbench history add`, docs/history.md)
# takes of an analysis beside tests.csv: every cell's run medians, which no
# other table keeps.
#   cells.csv        one row per cell: `cell` (its number in run_medians.csv),
#                    every parameter, runs, the median of its run medians and
#                    its percentiles (µs; percentiles.csv's)
#   run_medians.csv  one row per cell and run: cell, archive, run_id and the
#                    run's median, P90 and P99 (µs), times measured and kept
#   archives.csv     the archives analysed: name and directory
#   analysis.json    the thresholds, the adjustment, the assessment, when and
#                    by which nbhbench
# The history identifies the archives by their MANIFEST.sha256 and reads
# their provenance from the directories.

write_history_tables <- function(result, settings, dir) {
  params <- result$params$name
  cells <- result$frame$cells
  m <- result$medians
  runs <- result$frame$runs
  stats <- data.table(cell = sort(unique(m$cell)))
  stats[, c("runs", "median_us") := list(tabulate(match(m$cell, cell), .N), median_of_groups(m$cell, m$median) * 1e6)]
  setkey(stats, cell)
  p <- result$percentiles
  if (!is.null(p) && nrow(p)) {
    stats[p, on = "cell", `:=`(p50_us = i.p50 * 1e6, p90_us = i.p90 * 1e6, p99_us = i.p99 * 1e6)]
  } else {
    stats[, c("p50_us", "p90_us", "p99_us") := NA_real_]
  }
  table <- cbind(data.table(cell = stats$cell), cells[stats$cell, params, with = FALSE],
                 stats[, .(runs, median_us, p50_us, p90_us, p99_us)])
  write_table_file(table, file.path(dir, "cells.csv"))
  of_run <- match(m$run, runs$run_key)
  # Rows by cell, archive and run id: the runs ranked by name once (as
  # order() ranks strings, in C locale), then the rows by two integers.
  run_rank <- integer(nrow(runs))
  run_rank[order(runs$archive_name, runs$run_id, method = "radix")] <- seq_len(nrow(runs))
  o <- order(m$cell, run_rank[of_run], method = "radix")
  write_table_file(data.table(cell = m$cell[o], archive = runs$archive_name[of_run[o]], run_id = runs$run_id[of_run[o]],
                              median_us = m$median[o] * 1e6, p90_us = m$p90[o] * 1e6, p99_us = m$p99[o] * 1e6,
                              n = m$n[o], n_kept = m$n_kept[o]),
                   file.path(dir, "run_medians.csv"))
  write_table_file(data.table(archive = vapply(result$archives, `[[`, "", "name"),
                              directory = vapply(result$archives, function(a) normalizePath(a$dir), "")),
                   file.path(dir, "archives.csv"))
  assessment <- paste(readLines(result$assessment_file, warn = FALSE), collapse = "\n")
  write_text_file(jsonlite::toJSON(list(p_thres = result$p_thres, v_thres = result$v_thres,
                                        hold_ratio = result$hold_ratio %||% NA, adjust = result$adjust %||% "none",
                                        ci_level = result$ci_level, assessment_file = result$assessment_file,
                                        assessment = assessment, created = settings$created,
                                        version = settings$version),
                                   auto_unbox = TRUE, digits = NA, na = "null"),
                  file.path(dir, "analysis.json"))
}

# stats::median of the values X of each group (GROUP: integers; the groups
# in increasing order), bit for bit, without a call per group: one sort,
# then the middle value or the mean of the two middle ones. R's mean()
# adds in long double, so that its mean of a and b is (a + b) / 2 rounded
# once; (a + b) / 2 in double is the same where a + b is exact in long
# double -- a and b positive and finite, within 2^8 of each other, as run
# medians of one cell are. Any other pair is left to mean() itself; a group
# with an NA is NA, as median() makes it.
median_of_groups <- function(group, x) {
  o <- order(group, x, method = "radix")
  g <- group[o]
  v <- x[o]
  if (!length(g)) return(numeric())
  last <- c(which(g[-1L] != g[-length(g)]), length(g))
  first <- c(1L, head(last, -1L) + 1L)
  n <- last - first + 1L
  half <- (n + 1L) %/% 2L
  a <- v[first + half - 1L]
  b <- v[pmin(first + half, last)]
  out <- ifelse(n %% 2L == 1L, a, (a + b) / 2)
  even <- n %% 2L == 0L
  unsure <- which(even & !(is.finite(a) & is.finite(b) & a > 1e-290 & b <= a * 256))
  out[unsure] <- vapply(unsure, function(k) mean(c(a[k], b[k])), 0)
  out[g[last] %in% g[is.na(v)]] <- NA_real_
  out
}
