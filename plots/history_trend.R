# `nbhbench history trend`'s plot (history/trend.py computes the tables):
#   Rscript plots/history_trend.R cell|guideline DIR TITLE date|release
# A cell: the median of its run medians per entry (points joined by a
# line), the range of its run medians as a bar, P99 as an x, a change
# point's entry ringed in red, log y. A guideline: every test's ratio per
# entry (grey lines), violated tests red, the ratio 1 solid.
# Writes DIR/trend.png and DIR/trend.pdf. analyze/load.R sources this file
# with the other plots: ggplot2 is loaded when a trend is drawn, not then
# (loading it costs an analysis 0.4 s of CPU, as much as its tests).
suppressPackageStartupMessages(library(data.table))

trend_theme <- function() {
  theme_bw(base_size = 10) +
    theme(axis.text.x = element_text(angle = 35, hjust = 1), plot.title = element_text(size = 10),
          legend.position = "bottom")
}

# A long title (a cell's parameters) wrapped after its commas.
wrap_title <- function(title) paste(strwrap(gsub(",", ", ", title, fixed = TRUE), 105), collapse = "\n")

entry_axis <- function(x) {
  labels <- unique(x[order(position), .(position, label)])
  scale_x_continuous(breaks = labels$position, labels = labels$label)
}

cell_plot <- function(dir, title, by) {
  x <- fread(file.path(dir, "trend.csv"), colClasses = list(character = c("label", "change")), na.strings = "")
  x[, position := .I]
  x[, change := fcoalesce(change, "")]
  ggplot(x, aes(position, median_us)) +
    geom_errorbar(aes(ymin = run_min_us, ymax = run_max_us), width = 0.2, colour = "grey55", na.rm = TRUE) +
    geom_line(colour = "grey40") +
    geom_point(size = 2) +
    geom_point(aes(y = p99_us), shape = 4, colour = "grey40", na.rm = TRUE) +
    geom_point(data = x[nzchar(change)], shape = 21, size = 5, colour = "#d62728", stroke = 1.2) +
    entry_axis(x) +
    scale_y_log10() +
    labs(title = wrap_title(title), x = if (by == "release") "release" else "archive date",
         y = "µs (log scale)",
         subtitle = "median of run medians; bar: smallest to largest run median; x: P99; red ring: a change begins") +
    trend_theme()
}

guideline_plot <- function(dir, title, by) {
  x <- fread(file.path(dir, "trend_tests.csv"), colClasses = list(character = "label"))
  order <- unique(fread(file.path(dir, "trend.csv"), colClasses = list(character = "label"))$entry)
  x[, position := match(entry, order)]
  x[, violated := decision == "violated"]
  ggplot(x, aes(position, ratio)) +
    geom_hline(yintercept = 1, colour = "grey20") +
    geom_line(aes(group = test), colour = "grey75", linewidth = 0.3) +
    geom_point(aes(colour = violated), size = 1.4) +
    scale_colour_manual(values = c(`FALSE` = "grey45", `TRUE` = "#d62728"), labels = c("not violated", "violated"),
                        name = NULL) +
    entry_axis(x) +
    scale_y_log10() +
    labs(title = wrap_title(title), x = if (by == "release") "release" else "archive date",
         y = "ratio a / b (log scale)", subtitle = "each test's ratio per entry") +
    trend_theme()
}

history_trend_main <- function(args) {
  if (length(args) != 4L) stop("usage: history_trend.R cell|guideline DIR TITLE date|release")
  suppressPackageStartupMessages(library(ggplot2))
  p <- switch(args[1], cell = cell_plot(args[2], args[3], args[4]), guideline = guideline_plot(args[2], args[3], args[4]))
  ggsave(file.path(args[2], "trend.png"), p, width = 8, height = 4.5, dpi = 110)
  ggsave(file.path(args[2], "trend.pdf"), p, width = 8, height = 4.5)
}

if (sys.nframe() == 0L) history_trend_main(commandArgs(TRUE))
