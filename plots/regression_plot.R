# The regression overview (analyze/output/regression_plot_data.R): ratio
# new/baseline against msize, log scales, one panel per op; grey lines join
# the cells of one combination of the other parameters, bars are the
# ratio's confidence intervals, points are coloured by verdict, the
# slower, faster and cannot detect cells drawn above the grey ones of no
# change (a single faster cell among twenty is seen); the thresholds
# v_thres and 1 / v_thres are dashed.

REGRESSION_COLOURS <- c(slower = "#d62728", faster = "#2ca02c", `no change` = "grey45",
                        `cannot detect` = "#9467bd")

regression_plot <- function(plot, data, v_thres = 1.03) {
  data <- copy(data)
  data[, verdict := factor(verdict, levels = names(REGRESSION_COLOURS))]
  sizes <- sort(unique(data$msize[data$msize > 0]))
  breaks <- if (length(sizes) <= 12L) sizes else waiver()
  ggplot(data, aes(x = msize, y = ratio)) +
    geom_hline(yintercept = 1, colour = "grey20") +
    geom_hline(yintercept = c(v_thres, 1 / v_thres), colour = "grey40", linetype = "dashed") +
    geom_line(aes(group = line), colour = "grey75", linewidth = 0.4) +
    verdict_layers(data[verdict == "no change"], 1.8) +
    verdict_layers(data[is.na(verdict) | verdict != "no change"], 2.2) +
    facet_wrap(~op, scales = "free_x") +
    scale_x_continuous(trans = "log2", breaks = breaks, labels = function(v) format_bytes(v)) +
    scale_y_log10(labels = function(v) format(v, trim = TRUE, drop0trailing = TRUE)) +
    scale_colour_manual(values = REGRESSION_COLOURS, drop = FALSE) +
    labs(title = plot$title,
         subtitle = sprintf("ratio > 1: the new release is slower; dashed: %s and 1/%s", format(v_thres),
                            format(v_thres)),
         x = axis_title("msize"), y = "median new / median baseline (log scale)", colour = NULL,
         caption = wrap_text(plot$caption, 110)) +
    plot_theme()
}

# The intervals and points of some cells, one layer each.
verdict_layers <- function(cells, size) {
  list(geom_errorbar(data = cells, aes(ymin = low, ymax = high, colour = verdict), width = 0.15, linewidth = 0.4,
                     na.rm = TRUE),
       geom_point(data = cells, aes(colour = verdict), size = size))
}
