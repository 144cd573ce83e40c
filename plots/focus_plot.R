# Focus plot of one violation (SPEC 5): per run, a box plot of the raw
# times that passed the Tukey filter, both sides, normalised to the median
# of run medians of side a (the solid line at 1); the dashed line is side
# b's median of run medians; right of b's boxes, a bar: the ratio's
# confidence interval (ratio_ci) in these units. Boxes: quartiles and
# median; whiskers: the smallest and largest kept time (box_stats), a
# whisker far above the boxes cut at the top of the view and marked with
# its value (plot_data.R: focus_view). Drawn
# from rectangles and segments, one layer each, which renders ten times
# faster than one geom_boxplot group per run. Draws what
# analyze/output/plot_data.R computed.

focus_plot <- function(plot, data) {
  labels <- c(a = paste("a:", plot$a_label), b = paste("b:", plot$b_label))
  data <- copy(data)[, side := factor(labels[side], levels = labels)]
  half <- 0.35
  runs <- sort(unique(data$run))
  cut <- data[cut == TRUE]
  ggplot(data) +
    geom_segment(aes(x = run, xend = run, y = ymin, yend = top), linewidth = 0.3) +
    geom_rect(aes(xmin = run - half, xmax = run + half, ymin = lower, ymax = upper, fill = side),
              colour = "grey20", linewidth = 0.3) +
    geom_segment(aes(x = run - half, xend = run + half, y = middle, yend = middle), linewidth = 0.7) +
    geom_hline(yintercept = 1, colour = "#1f77b4") +
    geom_hline(yintercept = plot$median_b_us / plot$median_a_us, colour = "#ff7f0e", linetype = "dashed") +
    ci_bar(plot, levels(data$side), max(data$run) + 1) +
    cut_whiskers(cut) +
    facet_wrap(~side, nrow = 1) +
    scale_x_continuous(breaks = seq(min(runs), max(runs), by = max(1, ceiling(length(runs) / 15))),
                       expand = expansion(add = c(0.6, 1)),
                       minor_breaks = NULL) +
    scale_fill_manual(values = c("#aec7e8", "#ffbb78"), guide = "none") +
    labs(title = plot$title,
         subtitle = paste0(sprintf("%s = %s; lines: median of run medians, a %.3g \u00b5s (solid), b %.3g \u00b5s (dashed)",
                                   plot$varied, plot$level, plot$median_a_us, plot$median_b_us),
                           if (nrow(cut)) "\n\u25b2 a whisker cut at the top, with the value it reaches"),
         x = "run", y = "time / median of a's run medians", caption = wrap_text(plot$caption, 110)) +
    plot_theme() +
    theme(axis.text.x = element_text(angle = 0, hjust = 0.5, size = 8))
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

# The whiskers focus_view cut at the top of the view: a triangle at the
# cut and the value the whisker reaches, in the plot's units.
cut_whiskers <- function(cut) {
  if (!nrow(cut)) return(NULL)
  list(geom_point(data = cut, aes(x = run, y = top), shape = 17, size = 2.4, colour = "#d62728"),
       geom_text(data = cut, aes(x = run, y = top, label = sprintf("%.3g", ymax)), hjust = -0.35, size = 2.8,
                 colour = "#d62728"))
}
