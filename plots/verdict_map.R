# The report's first picture (analyze/output/verdict_map_data.R): the whole
# verdict as a heat map, guidelines (rows) against contexts (columns, one
# panel per library), each cell labelled violated/hold/open and coloured by
# its decisions (verdict_tone); the cells whose guideline cannot detect a
# violation with so few runs hatched, with a legend. Draws what the
# analyzer computed; verdict_map_size() gives the size it needs.

VERDICT_COLOURS <- c("#fcbba1", "#ef3b2c", "#99000d")
VERDICT_HOLD <- "#c7e9c0"   # every test holds
VERDICT_OPEN <- "#9e9e9e"   # every test open

# A cell's colour from its decisions: red by the share violated where any
# is (light to dark), else from green (all hold) to grey (all open), so
# that a cell whose tests are mostly open never reads as a pass.
verdict_tone <- function(share, open_share) {
  red <- grDevices::colorRamp(VERDICT_COLOURS)
  green_grey <- grDevices::colorRamp(c(VERDICT_HOLD, VERDICT_OPEN))
  rgb_of <- function(m) grDevices::rgb(m[, 1], m[, 2], m[, 3], maxColorValue = 255)
  out <- rep("grey90", length(share))
  violated <- !is.na(share) & share > 0
  rest <- !is.na(share) & share == 0
  if (any(violated)) out[violated] <- rgb_of(red(share[violated]))
  if (any(rest)) out[rest] <- rgb_of(green_grey(fcoalesce(open_share[rest], 0)))
  out
}

verdict_map <- function(plot, data) {
  heads <- verdict_column_heads(plot, data)
  data <- copy(data)
  data[, row := factor(row, levels = rev(levels(row)),
                       labels = vapply(rev(levels(row)), wrap_lines, "", chars = VERDICT_LABEL_CHARS))]
  if (!"open_share" %in% names(data)) data[, open_share := NA_real_]
  data[, tone := verdict_tone(share, open_share)]
  data[, ink := fifelse(!is.na(share) & (share > 0.55 | (share == 0 & fcoalesce(open_share, 0) > 0.8)), "white",
                        "grey10")]
  legend <- c(`violated (darker: more)` = VERDICT_COLOURS[2], `all hold` = VERDICT_HOLD,
              `open (greyer: more)` = VERDICT_OPEN)
  hatch <- verdict_hatch(data)
  ggplot(data, aes(x = column, y = row)) +
    geom_tile(aes(fill = tone), colour = "grey70", linewidth = 0.4) +
    geom_segment(data = hatch, aes(x = x, xend = xend, y = y, yend = yend, linetype = what), colour = "grey35",
                 linewidth = 0.35, key_glyph = "abline") +
    geom_text(aes(label = label, colour = ink), size = 3.2, fontface = "bold") +
    facet_grid(. ~ panel, scales = "free_x", space = "free_x") +
    scale_x_discrete(position = "top", expand = c(0, 0), labels = heads$label) +
    scale_y_discrete(expand = c(0, 0)) +
    scale_fill_identity(name = "violated / hold / open", breaks = unname(legend), labels = names(legend),
                        limits = unique(c(data$tone, unname(legend))),
                        guide = guide_legend(order = 1, override.aes = list(colour = "grey70"))) +
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
          axis.text.x.top = element_text(size = VERDICT_HEAD_PT, colour = "grey10", angle = heads$angle,
                                         hjust = if (heads$angle) 0 else 0.5, vjust = if (heads$angle) 0.5 else 0,
                                         lineheight = 0.9))
}

# A column's head (its parameter set and deployment, a sweep's "intermediate256
# 1x4") must not run into its neighbours': the set and the deployment on two
# lines, a column as wide as its head's longer line; where that makes the map
# wider than VERDICT_MAX_INCHES, the heads turn upright over narrow columns.
# list(label (a function of the column names), angle, width (a column, in
# inches), height (the heads' extra height, in inches)).
VERDICT_HEAD_PT <- 9
VERDICT_COLUMN_INCHES <- 0.8
VERDICT_MAX_INCHES <- 18
verdict_column_heads <- function(plot, data) {
  names <- levels(data$column)
  two_lines <- function(x) sub("\\s+(\\S+)$", "\n\\1", x)
  inches <- function(chars) chars * VERDICT_HEAD_PT * LABEL_CHAR_EM / 72
  longest <- max(nchar(unlist(strsplit(two_lines(names), "\n", fixed = TRUE))), 0L)
  width <- max(VERDICT_COLUMN_INCHES, inches(longest) + 0.15)
  if (verdict_label_inches(data) + width * plot$columns + 2.4 <= VERDICT_MAX_INCHES) {
    return(list(label = two_lines, angle = 0, width = width, height = if (any(grepl(" ", names))) 0.15 else 0))
  }
  list(label = identity, angle = 90, width = VERDICT_COLUMN_INCHES, height = inches(max(nchar(names), 0L)))
}

# The width in inches of the guideline labels (wrapped at VERDICT_LABEL_CHARS).
verdict_label_inches <- function(data) {
  labels <- strsplit(vapply(levels(data$row), wrap_lines, "", chars = VERDICT_LABEL_CHARS), "\n", fixed = TRUE)
  max(nchar(unlist(labels))) * 9 * LABEL_CHAR_EM / 72
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
# lines), a column per context (verdict_column_heads), the labels' width,
# room for the legend.
verdict_map_size <- function(plot, data) {
  labels <- strsplit(vapply(levels(data$row), wrap_lines, "", chars = VERDICT_LABEL_CHARS), "\n", fixed = TRUE)
  heads <- verdict_column_heads(plot, data)
  c(width = min(max(7, verdict_label_inches(data) + heads$width * plot$columns + 2.4), VERDICT_MAX_INCHES),
    height = max(3.4, 1.9 + heads$height + sum(0.1 + 0.15 * lengths(labels))))
}

# The map at the size it needs (plots/render_plots.R: plot_set).
verdict_map_set <- function(pd) {
  if (!nrow(pd$plots)) return(plot_set(pd, verdict_map))
  size <- verdict_map_size(pd$plots, pd$data)
  plot_set(pd, verdict_map, width = size[["width"]], height = size[["height"]])
}
