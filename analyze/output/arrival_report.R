# The report's part on arrival patterns and synchronised starts (SPEC 8.2):
# per experiment with one late process the extra time of every process over
# its time without delay (arrival.csv; a table of the late process, its
# neighbors and the others, and a picture of the topology's processes,
# plots/arrival_picture.R), and how well the clock starts were synchronised
# (clock_starts.csv). Nothing when the archives have neither.

# Writes arrival.csv and clock_starts.csv into DIR.
write_arrival <- function(result, dir) {
  if (nrow(result$arrival %||% data.table())) {
    write_table_file(arrival_rows(result), file.path(dir, "arrival.csv"))
  }
  if (nrow(result$clock_starts %||% data.table())) {
    write_table_file(clock_start_rows(result), file.path(dir, "clock_starts.csv"))
  }
}

# The pictures (plots/render_plots.R: plot_set), at most settings$max_plots;
# NULL without experiments with one late process.
arrival_plot_set <- function(result, settings) {
  if (!nrow(result$arrival %||% data.table())) return(NULL)
  params <- result$shown_params %||% result$params$name
  plot_set(arrival_picture_data(result, params, settings$max_plots %||% Inf), arrival_picture, width = 7,
           height = 4.5)
}

# arrival.csv: the parameters of each one_late cell, then per process its
# role and times in microseconds.
arrival_rows <- function(result) {
  x <- result$arrival
  cells <- result$frame$cells
  out <- cbind(cells[x$cell, result$params$name, with = FALSE],
               x[, .(rank, role, seconds_us = seconds * 1e6, baseline_us = baseline_seconds * 1e6,
                     extra_us = extra_seconds * 1e6, delay_us = delay_seconds * 1e6)])
  out[]
}

# clock_starts.csv: per cell started with the clock, medians over runs;
# the measured skew beside its resolution (skew_bound_us: a skew below it
# says only that the processes started within it).
clock_start_rows <- function(result) {
  x <- result$clock_starts[, .(runs = .N, start_skew_us = median(start_skew_seconds) * 1e6,
                               measured_skew_us = median(measured_skew_seconds) * 1e6,
                               skew_bound_us = median(skew_bound_seconds %||% NA_real_) * 1e6,
                               offset_spread_us = median(offset_spread_seconds) * 1e6,
                               window_us = median(window_seconds) * 1e6, sync_ms = median(sync_seconds) * 1e3,
                               invalid_reps = sum(invalid_reps)), keyby = cell]
  cbind(result$frame$cells[x$cell, result$params$name, with = FALSE], x[, !"cell"])
}

# Where each process of a cell is drawn: on a 2-D grid (cart, moore, vneum
# with ndim 2) at its row and column (tuw_dims_create(p, 2) is p/c x c, c
# the largest divisor of p up to its square root; ranks row by row), else
# in one row in rank order.
process_positions <- function(rank, topology, ndim, nprocs) {
  grid <- topology %chin% c("cart", "moore", "vneum") & !is.na(ndim) & ndim == 2L
  columns <- vapply(nprocs, function(p) max(which(p %% seq_len(floor(sqrt(p))) == 0L)), 1L)
  list(row = ifelse(grid, rank %/% columns, 0L), column = ifelse(grid, rank %% columns, rank))
}

# The pictures of the one_late cells in the order of arrival_summary (the
# largest extra time of a process outside the neighborhood first), at most limit.
arrival_picture_data <- function(result, params, limit = Inf) {
  x <- result$arrival
  cells <- result$frame$cells
  chosen <- head(arrival_summary(result)$cell, limit)
  x <- x[cell %in% chosen]
  c <- cells[x$cell]
  at <- process_positions(x$rank, c$topology, c$ndim, c$nprocs)
  data <- x[, .(plot = match(cell, chosen), rank, role, extra_us = extra_seconds * 1e6)]
  data[, `:=`(row = at$row, column = at$column)]
  shown <- cells[chosen]
  plots <- data.table(plot = seq_along(chosen),
                      file = sprintf("arrival-%03d", seq_along(chosen)),
                      title = sprintf("%s: %s on %s, %s processes, msize %s, one late by %s \u00b5s, sync %s",
                                      context_text(shown), shown$op, shown$topology, shown$nprocs, shown$msize,
                                      format(shown$arrival_us), shown$sync),
                      caption = paste0(shared_text(shown, params), ". Extra time: median over runs of the ",
                                       "process's time from the common start to its completion, minus the same ",
                                       "without delay; thick outline: the late process, dashed: its neighbors."))
  list(plots = plots, data = data)
}

# Per one_late cell: the late process's extra time, the largest of its
# neighbors' and of the others' (seconds); the cells whose others lost the
# most first (those without others last), then in cell order.
arrival_summary <- function(result) {
  x <- result$arrival
  largest <- function(v) if (length(v)) max(v) else NA_real_
  s <- x[, .(late_process = rank[role == "late"][1], late = largest(extra_seconds[role == "late"]),
             neighbors = largest(extra_seconds[role == "neighbor"]),
             others = largest(extra_seconds[role == "other"])), keyby = cell]
  s <- s[order(-others, cell, na.last = TRUE)]
  cbind(result$frame$cells[s$cell], s[, !"cell"])
}

arrival_blocks <- function(result, plots, settings) {
  has_arrival <- nrow(result$arrival %||% data.table()) > 0L
  has_clock <- nrow(result$clock_starts %||% data.table()) > 0L
  if (!has_arrival && !has_clock) return(list())
  us <- function(v) ifelse(is.na(v), "", sprintf("%.0f", v * 1e6))
  blocks <- list(heading("Arrival patterns and synchronised starts"))
  if (has_arrival) {
    s <- arrival_summary(result)
    blocks <- c(blocks, list(
      paragraph("With one late process (arrival `one_late`, delay d), every process's extra time over its time ",
                "without delay (medians over runs of the process's time from the common start to its ",
                "completion, results/RUN.ranks.csv). The late process takes about d more; a neighborhood ",
                "collective lets its neighbors wait for it, but the others (neither its source nor its ",
                "destination) should complete as without delay (AR2). The experiments whose others lost the ",
                "most come first, and so do their pictures; every process is in `arrival.csv`.")),
      bounded_table(s[, .(context = context_text(s), op, topology, ndim, msize, sync, `d (us)` = format(arrival_us),
                          `late rank` = late_process, `late (us)` = us(late), `neighbors, largest (us)` = us(neighbors),
                          `others, largest (us)` = us(others))], "one_late experiments", "arrival.csv"))
  }
  if (has_clock) {
    c <- clock_start_rows(result)
    measured <- function(v) if (all(is.na(v))) "" else sprintf("%.2f", median(v, na.rm = TRUE))
    below <- function(skew, bound) {
      known <- !is.na(skew) & !is.na(bound)
      if (!any(known)) "" else sprintf("%d of %d", sum(skew[known] <= bound[known]), sum(known))
    }
    k <- c[, .(experiments = .N, `start skew, median (us)` = sprintf("%.2f", median(start_skew_us)),
               `start skew, largest (us)` = sprintf("%.2f", max(start_skew_us)),
               `measured skew, median (us)` = measured(measured_skew_us),
               `its resolution, median (us)` = measured(skew_bound_us),
               `measured at or below its resolution` = below(measured_skew_us, skew_bound_us),
               `offset spread (us)` = sprintf("%.1f", median(offset_spread_us)),
               `invalid repetitions` = sum(invalid_reps), `sync cost, median (ms)` = sprintf("%.2f", median(sync_ms))),
           keyby = .(library, param_set, deployment)]
    blocks <- c(blocks, list(
      paragraph("Experiments started in windows of the global clock (`sync = clock`, docs/kernel.md): per ",
                "experiment the start skew as the clock's model saw it (the latest process's start after the ",
                "common start, median over repetitions; here the median and the largest over experiments of ",
                "its median over runs: near zero by construction, as each process judges its start on the ",
                "model it waited on), the skew measured after the repetitions with fresh clock offsets (the ",
                "latest minus the earliest process's start; empty from kernels before it) beside the ",
                "measurement's resolution (the two largest error bounds of the fresh offsets, summed: a measured ",
                "skew at or below it says only that the processes started within it; how many experiments' ",
                "were), the spread of the processes' estimated clock offsets, the repetitions left out because a ",
                "process reached its start late or was held up waiting for it, and what estimating the clock, ",
                "timing the window and measuring the skew cost. Per experiment in `clock_starts.csv`."),
      table_block(k[, .(library, `parameter set` = if (uniqueN(param_set) > 1L) param_set else NULL, deployment,
                        experiments, `start skew, median (us)`, `start skew, largest (us)`,
                        `measured skew, median (us)`, `its resolution, median (us)`,
                        `measured at or below its resolution`, `offset spread (us)`, `invalid repetitions`,
                        `sync cost, median (ms)`)])))
  }
  if (isTRUE(settings$plots) && !is.null(plots) && nrow(plots)) {
    for (i in seq_len(nrow(plots))) blocks <- c(blocks, list(figure(plots$png[i], plots$title[i])))
  }
  blocks
}
