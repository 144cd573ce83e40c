# Overview plot of one violated group (SPEC 5): the median of run medians of
# both sides against the varied parameter, log scales, violated levels
# ringed in red on the slower side; for a closest call, its level ringed in
# grey. Draws what analyze/output/plot_data.R computed.

overview_plot <- function(plot, data) {
  long <- rbind(data[, .(x, x_num, side = "a", us = median_a_us, marked, slower)],
                data[, .(x, x_num, side = "b", us = median_b_us, marked, slower)])
  labels <- c(a = paste("a:", plot$a_label), b = paste("b:", plot$b_label))
  long[, side := factor(labels[side], levels = labels)]
  marked <- long[marked == TRUE & as.character(side) == labels[slower]]
  ring <- if (plot$mark == "violated") "#d62728" else "grey35"
  numeric_x <- !anyNA(long$x_num) && all(long$x_num > 0)
  p <- ggplot(long, aes(x = if (numeric_x) x_num else factor(x, levels = unique(data$x)), y = us,
                        colour = side, shape = side, group = side)) +
    (if (uniqueN(long$x) > 1L) geom_line(linewidth = 0.6)) +   # one level: points, no line to draw
    geom_point(size = 2) +
    geom_point(data = marked, shape = 21, size = 5, stroke = 1.1, colour = ring, inherit.aes = FALSE,
               mapping = aes(x = if (numeric_x) x_num else factor(x, levels = unique(data$x)), y = us,
                             fill = plot$mark)) +
    scale_y_log10(labels = function(v) format(v, trim = TRUE, drop0trailing = TRUE)) +
    expand_limits(y = least_span(long$us)) +
    scale_colour_manual(values = c("#1f77b4", "#ff7f0e")) +
    scale_fill_manual(values = setNames("transparent", plot$mark), name = NULL,
                      guide = guide_legend(override.aes = list(colour = ring))) +
    labs(title = plot$title,
         subtitle = if (plot$mark == "violated") "median of run medians"
                    else "median of run medians; no violation: the closest call is ringed",
         x = axis_title(plot$varied), y = "time (\u00b5s, log scale)", colour = NULL, shape = NULL,
         caption = wrap_text(plot$caption, 110)) +
    plot_theme()
  if (numeric_x) {
    p <- p + scale_x_continuous(trans = "log2", breaks = unique(long$x_num),
                                labels = format_level(plot$varied, unique(long$x_num)))
  }
  p
}

# The times spread over at least a factor OVERVIEW_MIN_SPAN on the y axis:
# two sides 0.5 % apart (an A/A pair at one level) drawn at the bottom and
# top of the panel would look like a large difference. The limits to add
# (the geometric middle of the times, that factor wide), or none.
OVERVIEW_MIN_SPAN <- 1.25
least_span <- function(us) {
  us <- us[is.finite(us) & us > 0]
  if (!length(us) || max(us) / min(us) >= OVERVIEW_MIN_SPAN) return(numeric())
  middle <- sqrt(min(us) * max(us))
  middle * OVERVIEW_MIN_SPAN^c(-0.5, 0.5)
}

# The axis title of a parameter, with its unit.
axis_title <- function(name) {
  units <- c(msize = "msize (bytes per neighbor, log scale)", work_us = "work_us (\u00b5s)",
             nprocs = "processes")
  if (name %in% names(units)) units[[name]] else name
}

format_level <- function(name, x) {
  if (identical(name, "msize")) return(format_bytes(x))
  format(x, trim = TRUE)
}

format_bytes <- function(x) {
  ifelse(x >= 1024 & x %% 1024 == 0, paste0(x / 1024, "Ki"), as.character(x))
}

wrap_text <- function(x, width) paste(strwrap(x, width = width), collapse = "\n")

plot_theme <- function() {
  theme_bw(base_size = 11) +
    theme(legend.position = "top", legend.justification = "left", plot.title.position = "plot",
          plot.caption.position = "plot",
          plot.caption = element_text(hjust = 0, size = 8, colour = "grey30"),
          panel.grid.minor = element_blank(), axis.text.x = element_text(angle = 45, hjust = 1))
}
