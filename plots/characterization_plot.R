# Layout plot (SPEC 8.1, the datatype studies' layout figures): each
# layout's time over contiguous data of the same bytes against the studies'
# unit size A, one line per layout and Variant (colour) and datatype (line
# type), the ratio's interval as
# bars, faceted by message size (rows) and library (columns); 1 is
# "as fast as contiguous". Draws what analyze/assess/characterization.R
# computed.

characterization_plot <- function(plot, data) {
  ggplot(data, aes(x = A, y = ratio, colour = series, linetype = datatype, group = interaction(series, datatype))) +
    geom_hline(yintercept = 1, colour = "grey50", linetype = "dashed") +
    geom_errorbar(aes(ymin = ratio_ci_low, ymax = ratio_ci_high), width = 0.08, na.rm = TRUE) +
    geom_line(linewidth = 0.6) +
    geom_point(size = 1.4) +
    facet_grid(msize ~ library, labeller = labeller(msize = function(m) paste("msize", format_bytes(as.numeric(m))))) +
    scale_x_continuous(trans = "log10") +
    scale_y_continuous(trans = "log10") +
    labs(title = plot$title, subtitle = "ratio of medians of run medians; bars: its confidence interval",
         x = "A (elements per unit)", y = "time / time of contiguous data", colour = NULL, linetype = NULL,
         caption = wrap_text(plot$caption, 110)) +
    plot_theme() +
    theme(legend.box = "vertical", legend.spacing.y = unit(0, "pt"))
}
