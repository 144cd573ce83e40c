# The datatype studies' characterization (SPEC 8.1; docs/datatypes.md):
# each layout's time over contiguous data of the same bytes. For every cell
# whose data lies in a static layout (tiled, block, bucket, alternating,
# tiled_hetero) and is packed by the library, the cell with layout
# contiguous, described by the basic type, that has every other parameter
# equal (op, msize, datatype, topology, library, deployment, ...): the ratio
# of the medians of their run medians, with the bootstrap interval of every
# ratio of the analysis (ratio_ci.R). Halo and transpose derive their bytes
# from their own geometry and have no contiguous partner.

LAYOUT_GEOMETRY <- c("unit", "unit2", "stride", "stride2", "halo_n", "matrix_n")

# The studies' unit size A and Variant (1, 2; NA: neither) of static layout
# cells, from their geometry: A is the elements per unit on average (every
# Table 2 layout of unit size A has it), and Variant 1 spans 2 elements per
# unit more than it holds, Variant 2 three times what it holds.
layout_variant <- function(x) {
  g <- x[, .(layout, unit = as.numeric(unit), unit2 = as.numeric(unit2), stride = as.numeric(stride),
             stride2 = as.numeric(stride2))]
  g[, `:=`(k = NA_real_, extent = NA_real_, units = NA_real_)]
  g[layout == "tiled", `:=`(k = unit, extent = stride, units = 1)]
  g[layout == "block", `:=`(k = 2 * unit, extent = stride + stride2, units = 2)]
  g[layout == "bucket", `:=`(k = unit + unit2, extent = 2 * stride, units = 2)]
  g[layout == "alternating", `:=`(k = unit + unit2, extent = stride + stride2, units = 2)]
  g[layout == "tiled_hetero", `:=`(k = unit, extent = stride, units = 1)]
  variant <- fifelse(g$extent == g$k + 2 * g$units, 1L, fifelse(g$extent == 3 * g$k, 2L, NA_integer_))
  list(A = g$k / g$units, variant = variant)
}

# cells: data.table(cell, <params>); medians: data.table(cell, run, median).
# One row per static-layout cell with a contiguous partner: its parameters,
# A, variant, the two medians (us), ratio, ratio_ci_low, ratio_ci_high and
# the runs of each side.
characterization_table <- function(cells, medians, params, level = 0.95) {
  if (!"layout" %in% names(cells)) return(data.table())
  static <- c("tiled", "block", "bucket", "alternating", "tiled_hetero")
  typed <- cells[layout %in% static & packing == "datatype" & !is.na(msize)]
  plain <- cells[layout == "contiguous" & type_constructor == "basic" & packing == "datatype"]
  if (!nrow(typed) || !nrow(plain)) return(data.table())
  key <- setdiff(params, c("layout", "type_constructor", "packing", LAYOUT_GEOMETRY))
  pairs <- plain[typed, on = key, nomatch = NULL, .(cell = i.cell, contiguous_cell = x.cell)]
  if (!nrow(pairs)) return(data.table())
  runs <- split(medians$median, medians$cell)
  rows <- lapply(seq_len(nrow(pairs)), function(i) {
    a <- runs[[as.character(pairs$cell[i])]]
    b <- runs[[as.character(pairs$contiguous_cell[i])]]
    if (is.null(a) || is.null(b)) return(NULL)
    ci <- if (length(a) >= 2L && length(b) >= 2L) ratio_ci(a, b, level) else c(ratio = median(a) / median(b), low = NA, high = NA)
    data.table(cell = pairs$cell[i], layout_us = median(a) * 1e6, contiguous_us = median(b) * 1e6,
               ratio = ci[["ratio"]], ratio_ci_low = ci[["low"]], ratio_ci_high = ci[["high"]],
               runs_layout = length(a), runs_contiguous = length(b))
  })
  s <- rbindlist(rows)
  if (!nrow(s)) return(data.table())
  out <- cbind(cells[match(s$cell, cells$cell), params, with = FALSE], s[, !"cell"])
  v <- layout_variant(out)
  out[, `:=`(A = v$A, variant = v$variant)]
  setcolorder(out, c(params, "A", "variant"))
  setorderv(out, c(RUN_PARAMETERS, "op", "datatype", "msize", "layout", "variant", "A", "type_constructor"),
            na.last = TRUE)
  out[]
}

# One plot per operation (and per every other parameter that is neither
# an axis nor a facet nor a line: deployment, topology, ...) of the layouts
# by their normal descriptions (registry layouts.csv; every description is
# in the table): the ratio against A, one line per layout, Variant and
# datatype, the interval as bars, facets msize x library -- the studies'
# layout figures as ratios.
characterization_plot_data <- function(table, params, layouts) {
  if (!nrow(table)) return(list(plots = data.table(), data = data.table()))
  x <- table[layouts[, .(layout = name, type_constructor = normal)], on = c("layout", "type_constructor"), nomatch = NULL]
  if (!nrow(x)) return(list(plots = data.table(), data = data.table()))
  axes <- c("library", "layout", "msize", "nprocs", "datatype", "type_constructor", LAYOUT_GEOMETRY)
  plots <- plot_groups(x, setdiff(params, axes))
  plots[, `:=`(file = sprintf("layouts-%02d", plot), title = paste0("Layouts over contiguous data of the same bytes: ", op))]
  x[, series := paste0(layout, fifelse(is.na(variant), "", paste0(", Variant ", variant)))]
  data <- x[, .(plot, library, msize, layout, series, datatype, A, ratio, ratio_ci_low, ratio_ci_high)]
  setorder(data, plot, library, msize, series, datatype, A)
  list(plots = plots, data = data)
}
