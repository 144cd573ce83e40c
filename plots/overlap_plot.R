# Overlap plot (SPEC 7.1): overlap % of the exchange with busy work against
# the message size, one line per operation (colour: the collective; line
# type: blocking, nonblocking, persistent), the quartiles over runs as a
# band, faceted by library (rows) and work (columns). A blocking operation
# followed by its work cannot overlap: its line is the floor. Draws what
# analyze/assess/overlap.R computed.

overlap_plot <- function(plot, data) {
  data <- copy(data)
  data[, form := factor(form, levels = c("nonblocking", "persistent", "blocking"))]
  ggplot(data, aes(x = msize, y = overlap_percent, colour = collective, linetype = form, group = op)) +
    geom_ribbon(aes(ymin = overlap_q1, ymax = overlap_q3, fill = collective), alpha = 0.12, colour = NA) +
    geom_line(linewidth = 0.6) +
    geom_point(size = 1.3) +
    facet_grid(library ~ work) +
    scale_x_continuous(trans = "log2", breaks = unique(data$msize), labels = format_bytes(unique(data$msize))) +
    scale_y_continuous(limits = c(0, 100), breaks = seq(0, 100, 25)) +
    scale_linetype_manual(values = c(nonblocking = "solid", persistent = "longdash", blocking = "dotted"),
                          drop = FALSE) +
    guides(fill = "none") +
    labs(title = plot$title,
         subtitle = "overlap = (t_pure + t_work - t_ovl) / min(t_pure, t_work); band: quartiles over runs",
         x = axis_title("msize"), y = "overlap (%)", colour = NULL, linetype = NULL,
         caption = wrap_text(plot$caption, 110)) +
    plot_theme() +
    theme(legend.box = "vertical", legend.spacing.y = unit(0, "pt"))
}
