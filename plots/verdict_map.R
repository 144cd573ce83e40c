# The report's first picture (analyze/output/verdict_map_data.R): the whole
# verdict as a heat map, guidelines (rows) against contexts (columns, one
# panel per library), each cell coloured by its share of violated tests
# and labelled violated/tests; the cells whose guideline cannot detect a
# violation with so few runs hatched, with a legend. Draws what the
# analyzer computed; verdict_map_size() gives the size it needs.

VERDICT_COLOURS <- c("#ffffff", "#fcbba1", "#ef3b2c", "#99000d")

verdict_map <- function(plot, data) {
  data <- copy(data)
  data[, row := factor(row, levels = rev(levels(row)),
                       labels = vapply(rev(levels(row)), wrap_lines, "", chars = VERDICT_LABEL_CHARS))]
  data[, ink := fifelse(!is.na(share) & share > 0.55, "white", "grey10")]
  hatch <- verdict_hatch(data)
  ggplot(data, aes(x = column, y = row)) +
    geom_tile(aes(fill = share), colour = "grey70", linewidth = 0.4) +
    geom_segment(data = hatch, aes(x = x, xend = xend, y = y, yend = yend, linetype = what), colour = "grey35",
                 linewidth = 0.35, key_glyph = "abline") +
    geom_text(aes(label = label, colour = ink), size = 3.2, fontface = "bold") +
    facet_grid(. ~ panel, scales = "free_x", space = "free_x") +
    scale_x_discrete(position = "top", expand = c(0, 0)) +
    scale_y_discrete(expand = c(0, 0)) +
    scale_fill_gradientn(colours = VERDICT_COLOURS, values = c(0, 1e-9, 0.5, 1), limits = c(0, 1),
                         na.value = "grey90", labels = function(v) paste0(round(100 * v), "%"),
                         name = "violated tests", guide = guide_colourbar(barwidth = 0.8, barheight = 6, order = 1)) +
    scale_linetype_manual(values = c(`cannot detect (too few runs)` = "solid"), name = NULL, drop = FALSE) +
    scale_colour_identity() +
    labs(title = plot$title, subtitle = plot$subtitle, caption = plot$caption, x = NULL, y = NULL) +
    theme_bw(base_size = 11) +
    theme(legend.position = "right", legend.justification = "top", legend.box = "vertical",
          legend.box.just = "left", legend.title = element_text(size = 9), legend.text = element_text(size = 8),
          plot.title.position = "plot",
          plot.caption.position = "plot", plot.caption = element_text(hjust = 0, size = 8, colour = "grey30"),
          panel.grid = element_blank(), panel.background = element_rect(fill = "grey95"),
          panel.spacing.x = unit(0.25, "lines"), strip.placement = "outside",
          strip.text = element_text(face = "bold"), axis.ticks = element_blank(),
          axis.text.y = element_text(hjust = 0, size = 9, colour = "grey10"),
          axis.text.x.top = element_text(size = 9, colour = "grey10"))
}

# The guideline labels are wrapped at this many characters.
VERDICT_LABEL_CHARS <- 48L

# Diagonal strokes across every cell that cannot detect, in the positions
# of the discrete scales: within its panel, a column is at its rank among
# the panel's columns, a row at its rank among the rows. A stroke is the
# line v = u + c in the cell's own coordinates u, v in [-0.5, 0.5].
verdict_hatch <- function(data) {
  what <- factor("cannot detect (too few runs)")
  blind <- data[cannot_detect == TRUE]
  if (!nrow(blind)) {
    return(data.table(panel = data$panel[0], x = numeric(), xend = numeric(), y = numeric(), yend = numeric(),
                      what = what[0]))
  }
  columns <- unique(data[, .(panel, column)])[order(panel, column)][, rank := seq_len(.N), by = panel]
  blind[columns, on = c("panel", "column"), cx := i.rank]
  blind[, cy := as.integer(row)]
  strokes <- CJ(cell = seq_len(nrow(blind)), c = seq(-2, 2) / 3)
  strokes[, `:=`(u0 = pmax(-0.5, -0.5 - c), u1 = pmin(0.5, 0.5 - c))]
  strokes[, .(panel = blind$panel[cell], x = blind$cx[cell] + u0, xend = blind$cx[cell] + u1,
              y = blind$cy[cell] + u0 + c, yend = blind$cy[cell] + u1 + c, what = what)]
}

# The size in inches the map needs: a row per guideline (its label's
# lines), a column per context, the labels' width, room for the legend.
verdict_map_size <- function(plot, data) {
  labels <- strsplit(vapply(levels(data$row), wrap_lines, "", chars = VERDICT_LABEL_CHARS), "\n", fixed = TRUE)
  label_width <- max(nchar(unlist(labels))) * 9 * LABEL_CHAR_EM / 72
  c(width = min(max(7, label_width + 0.8 * plot$columns + 2.4), 18),
    height = max(3.4, 1.9 + sum(0.1 + 0.15 * lengths(labels))))
}

# The map at the size it needs (plots/render_plots.R: plot_set).
verdict_map_set <- function(pd) {
  if (!nrow(pd$plots)) return(plot_set(pd, verdict_map))
  size <- verdict_map_size(pd$plots, pd$data)
  plot_set(pd, verdict_map, width = size[["width"]], height = size[["height"]])
}
