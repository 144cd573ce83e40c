# The report's section on overlap (overlap.R): a summary per library,
# deployment, form of the operation and work; with several parameter sets
# what each gives against the reference set, at what cost (overlap_sets);
# and the overlap plots. Nothing when the archives have no measured work.

# Per library, parameter set, deployment and form (nonblocking, persistent,
# blocking) and work: cells, median / largest overlap and where it is
# largest (empty when nothing overlaps).
overlap_summary <- function(overlap, operations) {
  x <- copy(overlap)[operation_forms(operations), on = "op", form := i.form]
  x[, work := fifelse(fcoalesce(as.numeric(work_factor), 0) > 0, paste0("work_factor=", work_factor),
                      paste0("work_us=", work_us))]
  x[, form := factor(form, levels = c("nonblocking", "persistent", "blocking"))]
  s <- x[order(-overlap_percent), .(cells = .N, median_overlap = median(overlap_percent),
                                    largest_overlap = overlap_percent[1],
                                    largest_at = if (overlap_percent[1] > 0) sprintf("%s %s msize=%s", op[1],
                                                                                      fcoalesce(topology[1], ""), msize[1])
                                                 else ""),
         keyby = .(library, param_set, deployment, nprocs, form, work)]
  s[, nprocs := NULL][]
}

# With several parameter sets: per library, deployment and set, the median
# overlap of its nonblocking and persistent cells with work, the reference
# set's on the same cells, and what the set costs: the median ratio
# set / reference of t_pure (the operation without work) and of t_ovl.
overlap_sets <- function(overlap, operations, reference) {
  x <- copy(overlap)[operation_forms(operations), on = "op", form := i.form][form != "blocking"]
  if (!nrow(x) || uniqueN(x$param_set) < 2L) return(data.table())
  same <- setdiff(names(overlap), c("param_set", "t_pure_us", "t_work_us", "t_ovl_us", "overlap_percent",
                                    "overlap_q1", "overlap_q3", "runs", "cell", "pure_cell"))
  ref <- x[param_set == reference]
  other <- x[param_set != reference]
  both <- ref[other, on = same, nomatch = NULL,
              .(library, deployment, nprocs, param_set = i.param_set, overlap = i.overlap_percent,
                ref_overlap = overlap_percent, pure_ratio = i.t_pure_us / t_pure_us, ovl_ratio = i.t_ovl_us / t_ovl_us)]
  if (!nrow(both)) return(data.table())
  s <- both[, .(reference = reference, cells = .N, median_overlap = median(overlap),
                reference_median_overlap = median(ref_overlap), median_pure_ratio = median(pure_ratio),
                median_ovl_ratio = median(ovl_ratio)), keyby = .(library, deployment, nprocs, param_set)]
  s[, nprocs := NULL]
  setcolorder(s, c("reference", "param_set", "library", "deployment"))
  s[]
}

overlap_blocks <- function(result, plots, settings) {
  overlap <- result$overlap
  if (!nrow(overlap)) return(list())
  ops <- result$registry$operations
  s <- overlap_summary(overlap, ops)
  several <- uniqueN(s$param_set) > 1L
  blocks <- list(
    heading("Overlap with busy work"),
    paragraph("Per cell with busy work: overlap = 100 max(0, min(1, (t_pure + t_work - t_ovl) / min(t_pure, t_work))) ",
              "(Intel IMB-NBC), t_pure the operation without work, t_work the busy work as measured in every ",
              "repetition (not as calibrated), t_ovl the operation with the work; medians of run medians, the ",
              "spread is the quartiles of the per-run overlaps. Every cell is in `overlap.csv`. A blocking ",
              "operation followed by its work cannot overlap; its overlap is the floor of the measurement."),
    table_block(s[, .(library, `parameter set` = if (several) param_set else NULL, deployment, form, work, cells,
                      `median overlap (%)` = sprintf("%.0f", median_overlap),
                      `largest (%)` = sprintf("%.0f", largest_overlap), `largest at` = largest_at)], "overlap"))
  sets <- overlap_sets(overlap, ops, result$reference_set)
  if (nrow(sets)) {
    blocks <- c(blocks, list(
      heading(sprintf("What each parameter set gives against `%s`, at what cost", result$reference_set), 3L),
      paragraph("Nonblocking and persistent cells with work measured under both sets: median overlap under the ",
                "set and under the reference; cost: median ratio set / reference of the operation's time without ",
                "work (t_pure) and with it (t_ovl). In `overlap_sets.csv`."),
      table_block(sets[, .(set = param_set, library, deployment, cells,
                           `median overlap (%)` = sprintf("%.0f", median_overlap),
                           `under the reference (%)` = sprintf("%.0f", reference_median_overlap),
                           `t_pure ratio` = sprintf("%.2f", median_pure_ratio),
                           `t_ovl ratio` = sprintf("%.2f", median_ovl_ratio))], "overlap-sets")))
  }
  if (isTRUE(settings$plots) && nrow(plots)) {
    for (i in seq_len(nrow(plots))) {
      blocks <- c(blocks, list(figure(plots$png[i], paste0("Overlap: ", plots$caption[i]))))
    }
  }
  blocks
}
