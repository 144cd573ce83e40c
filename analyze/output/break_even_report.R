# Persistent break-even in the outputs (analyze/assess/break_even.R):
# break_even.csv, every persistent experiment with its blocking partner, and
# the report's section.

# One row per persistent cell; times in microseconds; break_even and its
# bounds a number of repetitions or "never"; break_even "not shown" where
# the saving is within the noise (saving_shown).
break_even_table <- function(result) {
  be <- result$break_even
  if (is.null(be) || !nrow(be)) return(data.table())
  params <- result$params$name
  cells <- result$frame$cells
  repetitions <- function(k, never, shown = TRUE) {
    ifelse(never, "never", ifelse(!shown, "not shown", ifelse(is.na(k), NA_character_,
                                                             format(k, scientific = FALSE, trim = TRUE))))
  }
  out <- cbind(cells[be$cell, params, with = FALSE],
               be[, .(blocking_op = cells$op[blocking_cell], runs, init_us = init_s * 1e6,
                      persistent_us = persistent_s * 1e6, blocking_us = blocking_s * 1e6, saving_us = saving_s * 1e6,
                      saving_shown, break_even = repetitions(break_even, never, saving_shown | never),
                      break_even_low = repetitions(break_even_low, never_low),
                      break_even_high = repetitions(break_even_high, never_high))])
  out[, ci_level := result$ci_level %||% 0.95]
  out[]
}

break_even_blocks <- function(result, settings) {
  bt <- break_even_table(result)
  if (!nrow(bt)) return(list())
  # The parameters that tell the rows apart (all of them are in break_even.csv).
  params <- setdiff(result$params$name, c(RUN_PARAMETERS, "op"))
  params <- params[vapply(params, function(p) uniqueN(bt[[p]]) > 1L, TRUE)]
  shared <- if (length(params)) shared_text(bt, params, with_varied = TRUE) else ""
  interval <- ifelse(!is.na(bt$break_even_low), sprintf("%s .. %s", bt$break_even_low, bt$break_even_high), "")
  x <- bt[, .(op, context = context_text(bt), parameters = shared, runs,
              `_init (µs)` = sprintf("%.4g", init_us), `Start+Wait (µs)` = sprintf("%.4g", persistent_us),
              `blocking (µs)` = sprintf("%.4g", blocking_us), `break-even` = break_even,
              interval = interval)]
  c(list(heading("Persistent break-even"),
         paragraph("After how many repetitions the persistent form pays for its `_init`: per run the smallest k ",
                   "with _init + k (Start + Wait) < k x blocking call, from the run's _init time ",
                   "(`preparation.csv`, the slowest process's) and its run medians of both forms (every other ",
                   "parameter equal); the break-even is the median over the runs, `never` where that median run ",
                   "never pays off. The interval: ",
                   sprintf("the %g %% distribution-free interval of the same median ", 100 * bt$ci_level[1]),
                   "(order statistics; none with fewer than 6 runs), so the break-even lies within it. ",
                   "`not shown`: the saving per call (blocking minus Start + Wait) is within the noise (its ",
                   "interval reaches 0), which would make any break-even a matter of chance. All rows in ",
                   "`break_even.csv`.")),
    bounded_table(x, "persistent experiments", "break_even.csv"))
}
