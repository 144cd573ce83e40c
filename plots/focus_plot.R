# Focus plot of one violation (SPEC 5): per run, a box plot of the raw
# times that passed the Tukey filter, both sides, normalised to the median
# of run medians of side a (the solid line at 1); the dashed line is side
# b's median of run medians; right of b's boxes, a bar: the ratio's
# confidence interval (ratio_ci) in these units. Boxes: quartiles and
# median; whiskers: the smallest and largest kept time (box_stats); x: the
# run's 99th percentile of all its times, outliers included (the tail
# latency, analyze/reduce/percentiles.R). Drawn
# from rectangles and segments, one layer each, which renders ten times
# faster than one geom_boxplot group per run. Draws what
# analyze/output/plot_data.R computed.

focus_plot <- function(plot, data) {
  labels <- c(a = paste("a:", plot$a_label), b = paste("b:", plot$b_label))
  data <- copy(data)[, side := factor(labels[side], levels = labels)]
  half <- 0.35
  runs <- sort(unique(data$run))
  ggplot(data) +
    geom_segment(aes(x = run, xend = run, y = ymin, yend = ymax), linewidth = 0.3) +
    geom_rect(aes(xmin = run - half, xmax = run + half, ymin = lower, ymax = upper, fill = side),
              colour = "grey20", linewidth = 0.3) +
    geom_segment(aes(x = run - half, xend = run + half, y = middle, yend = middle), linewidth = 0.7) +
    geom_hline(yintercept = 1, colour = "#1f77b4") +
    geom_hline(yintercept = plot$median_b_us / plot$median_a_us, colour = "#ff7f0e", linetype = "dashed") +
    ci_bar(plot, levels(data$side), max(data$run) + 1) +
    tail_marks(data, plot) +
    facet_wrap(~side, nrow = 1) +
    scale_x_continuous(breaks = seq(min(runs), max(runs), by = max(1, ceiling(length(runs) / 15))),
                       expand = expansion(add = c(0.6, 1)),
                       minor_breaks = NULL) +
    scale_fill_manual(values = c("#aec7e8", "#ffbb78"), guide = "none") +
    labs(title = wrap_text(plot$title, 80),
         subtitle = wrap_text(sprintf(paste("%s = %s; lines: median of run medians, a %.3g \u00b5s (solid),",
                                            "b %.3g \u00b5s (dashed); x: each run's P99 (\u25b3: off the scale,",
                                            "its value above)"),
                                      plot$varied, plot$level, plot$median_a_us, plot$median_b_us), 88),
         x = "run", y = "time / median of a's run medians", caption = wrap_text(plot$caption, 110)) +
    plot_theme() +
    theme(axis.text.x = element_text(angle = 0, hjust = 0.5, size = 8))
}

# Each run's P99 (data$p99) as an x; one far above the boxes (more than
# 1.5 times the highest whisker, line or interval) as a triangle at that
# height with its value, so that the boxes keep their scale. Nothing
# without p99.
tail_marks <- function(data, plot) {
  marks <- focus_tail_marks(data, plot)
  if (is.null(marks)) return(NULL)
  list(geom_point(data = marks, aes(x = run, y = y, shape = shape), size = 1.6, colour = "grey30",
                  inherit.aes = FALSE),
       geom_text(data = marks[shape == 2], aes(x = run, y = y, label = sprintf("%.3g", p99)), vjust = -0.7,
                 size = 2.3, colour = "grey30", inherit.aes = FALSE),
       scale_shape_identity())
}

# data.table(side, run, p99, y, shape) of tail_marks: shape 4 (x) at the
# P99, or 2 (triangle) at the cap.
focus_tail_marks <- function(data, plot) {
  if (!"p99" %in% names(data) || all(is.na(data$p99))) return(NULL)
  cap <- 1.5 * max(data$ymax, 1, plot$median_b_us / plot$median_a_us, plot$b_high, na.rm = TRUE)
  marks <- data[!is.na(p99), .(side, run, p99)]
  marks[, `:=`(y = pmin(p99, cap), shape = fifelse(p99 > cap, 2, 4))][]
}

# The ratio's confidence interval as a bar in b's panel, at x, around b's
# median over a's (plot_data.R: b_low, b_high); nothing without one.
ci_bar <- function(plot, sides, x) {
  if (is.null(plot$b_low) || is.na(plot$b_low)) return(NULL)
  bar <- data.table(side = factor(sides[2], levels = sides), x = x, y = plot$median_b_us / plot$median_a_us,
                    low = plot$b_low, high = plot$b_high)
  list(geom_errorbar(data = bar, aes(x = x, ymin = low, ymax = high), width = 0.4, colour = "#d62728",
                     linewidth = 0.8, inherit.aes = FALSE),
       geom_point(data = bar, aes(x = x, y = y), colour = "#d62728", size = 2, inherit.aes = FALSE),
       geom_text(data = bar, aes(x = x, y = high, label = "95% CI"), vjust = -0.6, size = 2.8,
                 colour = "#d62728", inherit.aes = FALSE))
}
