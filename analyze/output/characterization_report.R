# The report's section on derived datatypes (SPEC 8.1): the layouts against
# contiguous data of the same bytes (characterization.R), as a table and a
# plot per operation. Nothing when the archives have no static layout with
# a contiguous partner. The guidelines DT1-DT4 are assessed like any other
# (their violations are in the tables above).

characterization_blocks <- function(result, plots, settings) {
  x <- result$characterization
  if (is.null(x) || !nrow(x)) return(list())
  several_descriptions <- uniqueN(x$type_constructor) > 1L
  shown <- x[, .(library, deployment, op, datatype, msize, layout,
                 description = if (several_descriptions) type_constructor else NULL,
                 A = format(A), variant = fifelse(is.na(variant), "", as.character(variant)),
                 `layout (µs)` = sprintf("%.4g", layout_us), `contiguous (µs)` = sprintf("%.4g", contiguous_us),
                 ratio = sprintf("%.2f", ratio),
                 interval = fifelse(is.na(ratio_ci_low), "", sprintf("%.2f-%.2f", ratio_ci_low, ratio_ci_high)))]
  blocks <- list(
    heading("Derived datatypes: layouts against contiguous data"),
    paragraph("Each layout's time over the time of the same bytes as contiguous data (layout contiguous, the basic ",
              "type), every other parameter equal, both packed by the library: the ratio of the medians of run ",
              "medians with its ", sprintf("%.0f %%", 100 * result$ci_level), " interval (the studies' ",
              "characterization, docs/datatypes.md). A is the elements per unit; Variant 1 and 2 are the studies' ",
              "Table 2. Every cell is in `characterization.csv`."))
  blocks <- c(blocks, bounded_table(shown, "layout cells", "characterization.csv"))
  if (isTRUE(settings$plots) && !is.null(plots) && nrow(plots)) {
    for (i in seq_len(nrow(plots))) {
      blocks <- c(blocks, list(figure(plots$png[i], paste0("Layouts: ", plots$caption[i]))))
    }
  }
  blocks
}
