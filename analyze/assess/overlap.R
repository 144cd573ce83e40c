# Overlap of communication and busy work (SPEC 7.1), as Intel's IMB-NBC
# reports it, per cell with work (work_factor or work_us > 0) and the same
# cell without work (every other parameter equal):
#   overlap = 100 * max(0, min(1, (t_pure + t_work - t_ovl) / min(t_pure, t_work)))
# t_pure: the operation without work; t_work: the busy work as measured in
# the cell with work (reduce_work); t_ovl: the operation with the work. From
# medians of run medians; the spread is the quartiles of the same formula
# per run. 100 %: the work hid the whole exchange (or the exchange the whole
# work); 0 %: the time is the sum, nothing overlapped (a blocking operation
# followed by its work, by construction).

overlap_percent <- function(t_pure, t_work, t_ovl) {
  100 * pmax(0, pmin(1, (t_pure + t_work - t_ovl) / pmin(t_pure, t_work)))
}

# cells: data.table(cell, <params>); medians and work: data.table(cell, run,
# median) of the operation times and of the measured work. One row per
# cell with work that has a partner without work: its parameters, t_pure_us,
# t_work_us, t_ovl_us, overlap_percent, overlap_q1, overlap_q3, runs, and
# the cells (cell, pure_cell).
overlap_table <- function(cells, medians, work, params) {
  if (!nrow(work)) return(data.table())
  key <- setdiff(params, c("work_factor", "work_us"))
  with_work <- cells[cell %in% work$cell]
  without <- cells[!is.na(msize) & fcoalesce(as.numeric(work_factor), 0) == 0 & fcoalesce(as.numeric(work_us), 0) == 0]
  pairs <- without[with_work, on = key, nomatch = NULL, .(cell = i.cell, pure_cell = x.cell)]
  alone <- setdiff(with_work$cell, pairs$cell)
  if (length(alone)) {
    nbh_warning("overlap: ", length(alone), " cell(s) with busy work have no measurement without work (the same ",
                "parameters with work_factor and work_us 0); left out of overlap.csv")
  }
  if (!nrow(pairs)) return(data.table())
  runs <- medians[pairs, on = "cell", nomatch = NULL, .(cell, pure_cell = i.pure_cell, run, t_ovl = median)]
  runs[work, on = c("cell", "run"), t_work := i.median]
  runs[medians, on = c(pure_cell = "cell", "run"), t_pure := i.median]
  runs <- runs[!is.na(t_work) & !is.na(t_pure)]
  if (!nrow(runs)) return(data.table())
  runs[, overlap := overlap_percent(t_pure, t_work, t_ovl)]
  s <- runs[, .(pure_cell = pure_cell[1], t_pure = median(t_pure), t_work = median(t_work), t_ovl = median(t_ovl),
                overlap_q1 = quantile(overlap, 0.25, names = FALSE), overlap_q3 = quantile(overlap, 0.75, names = FALSE),
                runs = .N), keyby = cell]
  out <- cbind(cells[s$cell, params, with = FALSE],
               s[, .(t_pure_us = t_pure * 1e6, t_work_us = t_work * 1e6, t_ovl_us = t_ovl * 1e6,
                     overlap_percent = overlap_percent(t_pure, t_work, t_ovl), overlap_q1, overlap_q3, runs,
                     cell, pure_cell)])
  setorderv(out, c(RUN_PARAMETERS, setdiff(params, c(RUN_PARAMETERS, "msize")), "msize"), na.last = TRUE)
  out[]
}

# The form of each operation (registry operations.csv): blocking,
# nonblocking or persistent; and the collective it forms (allgather, ...).
operation_forms <- function(operations) {
  operations[, .(op = name, collective = paste0(pattern, variant),
                 form = fifelse(persistent == "1", "persistent", fifelse(blocking == "1", "blocking", "nonblocking")))]
}

# One plot per combination of the parameters that are neither the axes nor
# facets nor lines (deployment, topology, ...): overlap % against msize,
# one line per op (colour: the collective; line type: its form), facets
# library x work_factor (x work_us where it varies).
overlap_plot_data <- function(overlap, operations, params) {
  if (!nrow(overlap)) return(list(plots = data.table(), data = data.table()))
  x <- copy(overlap)[operation_forms(operations), on = "op", `:=`(collective = i.collective, form = i.form)]
  x[, work := fifelse(fcoalesce(as.numeric(work_factor), 0) > 0, paste0("work_factor ", work_factor),
                      paste0("work_us ", work_us))]
  plots <- plot_groups(x, setdiff(params, c("library", "op", "msize", "work_factor", "work_us", "nprocs")))
  plots[, `:=`(file = sprintf("overlap-%02d", plot), title = "Overlap of the exchange with busy work (IMB-NBC)")]
  data <- x[, .(plot, library, work, op, collective, form, msize, overlap_percent, overlap_q1, overlap_q3)]
  setorder(data, plot, library, work, op, msize)
  list(plots = plots, data = data)
}
