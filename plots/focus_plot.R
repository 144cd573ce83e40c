# Focus plot of one violation (SPEC 5): per run, a box plot of the raw
# times that passed the Tukey filter, both sides, normalised to the median
# of run medians of side a (the solid line at 1); the dashed line is side
# b's median of run medians; right of b's boxes, a bar: the ratio's
# confidence interval (ratio_ci) in these units. Boxes: quartiles and
# median; whiskers: the smallest and largest kept time (box_stats), a
# whisker far above the boxes cut at the top of the view and marked with
# its value (plot_data.R: focus_view); x: the run's 99th percentile of all
# its times, outliers included (the tail latency,
# analyze/reduce/percentiles.R). Drawn
# from rectangles and segments, one layer each, which renders ten times
# faster than one geom_boxplot group per run. Draws what
# analyze/output/plot_data.R computed.

focus_plot <- function(plot, data) {
  labels <- c(a = paste("a:", plot$a_label), b = paste("b:", plot$b_label))
  data <- copy(data)[, side := factor(labels[side], levels = labels)]
  half <- 0.35
  runs <- sort(unique(data$run))
  cut <- data[cut == TRUE]
  marks <- focus_tail_marks(data, plot)
  ggplot(data) +
    geom_segment(aes(x = run, xend = run, y = ymin, yend = top), linewidth = 0.3) +
    geom_rect(aes(xmin = run - half, xmax = run + half, ymin = lower, ymax = upper, fill = side),
              colour = "grey20", linewidth = 0.3) +
    geom_segment(aes(x = run - half, xend = run + half, y = middle, yend = middle), linewidth = 0.7) +
    geom_hline(yintercept = 1, colour = "#1f77b4") +
    geom_hline(yintercept = plot$median_b_us / plot$median_a_us, colour = "#ff7f0e", linetype = "dashed") +
    ci_bar(plot, levels(data$side), max(data$run) + 1) +
    cut_whiskers(cut) +
    tail_marks(marks) +
    facet_wrap(~side, nrow = 1) +
    scale_x_continuous(breaks = seq(min(runs), max(runs), by = max(1, ceiling(length(runs) / 15))),
                       expand = expansion(add = c(0.6, 1)),
                       minor_breaks = NULL) +
    scale_fill_manual(values = c("#aec7e8", "#ffbb78"), guide = "none") +
    labs(title = plot$title,
         subtitle = paste0(sprintf("%s = %s; lines: median of run medians, a %.3g \u00b5s (solid), b %.3g \u00b5s (dashed)",
                                   plot$varied, plot$level, plot$median_a_us, plot$median_b_us),
                           if (!is.null(marks)) "; x: each run's P99",
                           if (nrow(cut)) "\n\u25b2 a whisker cut at the top, with the value it reaches",
                           if (!is.null(marks) && any(marks$shape == 2)) "\n\u25b3 a run's P99 above the view, with its value"),
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

# Each run's P99 (data$p99) as an x; one far above the view (more than 1.5
# times its top: the cut whiskers' top, else the highest whisker, line or
# interval) as a triangle at that height with its value, so that the boxes
# keep their scale. Nothing without p99.
tail_marks <- function(marks) {
  if (is.null(marks)) return(NULL)
  list(geom_point(data = marks, aes(x = run, y = y, shape = shape), size = 1.6, colour = "grey30",
                  inherit.aes = FALSE),
       geom_text(data = marks[shape == 2], aes(x = run, y = y, label = sprintf("%.3g", p99)), vjust = -0.7,
                 size = 2.3, colour = "grey30", inherit.aes = FALSE),
       scale_shape_identity())
}

# data.table(side, run, p99, y, shape) of tail_marks: shape 4 (x) at the
# P99, or 2 (triangle) at the cap; NULL without p99.
focus_tail_marks <- function(data, plot) {
  if (!"p99" %in% names(data) || all(is.na(data$p99))) return(NULL)
  view_top <- if (!is.null(plot$view_top) && !is.na(plot$view_top)) plot$view_top
              else max(data[["top"]] %||% data$ymax, 1, plot$median_b_us / plot$median_a_us, plot$b_high, na.rm = TRUE)
  cap <- 1.5 * view_top
  marks <- data[!is.na(p99), .(side, run, p99)]
  marks[, `:=`(y = pmin(p99, cap), shape = fifelse(p99 > cap, 2, 4))][]
}
