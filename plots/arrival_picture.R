# The processes of a topology under one late process (SPEC 8.2): one tile
# per process, placed as the topology lays them out (a 2-D grid as its rows
# and columns, everything else in rank order), coloured by the extra time
# the process took over its time without delay (median over runs); the
# late process outlined thick, its neighbors dashed. A library that keeps
# the delay in the neighborhood leaves the other tiles pale. Draws what
# analyze/output/arrival_report.R computed.

arrival_picture <- function(plot, data) {
  data <- copy(data)
  data[, role := factor(role, levels = c("late", "neighbor", "other"))]
  ggplot(data, aes(x = column, y = row)) +
    geom_tile(aes(fill = extra_us), width = 0.94, height = 0.94) +
    geom_tile(aes(linetype = role, linewidth = role), fill = NA, colour = "black", width = 0.94, height = 0.94) +
    geom_text(aes(label = sprintf("%d\n%+.0f", rank, extra_us)), size = 3.2) +
    scale_fill_gradient(low = "#f7fbff", high = "#cb181d", name = "extra time (\u00b5s)",
                        limits = c(min(0, data$extra_us), max(1, data$extra_us))) +
    scale_linetype_manual(values = c(late = "solid", neighbor = "dashed", other = "blank"), drop = FALSE,
                          name = NULL) +
    scale_linewidth_manual(values = c(late = 1.4, neighbor = 0.6, other = 0.2), drop = FALSE, name = NULL) +
    scale_y_reverse() +
    coord_fixed() +
    labs(title = wrap_text(plot$title, 55), x = NULL, y = NULL, caption = wrap_text(plot$caption, 95)) +
    theme_void(base_size = 11) +
    theme(plot.caption = element_text(hjust = 0, size = 8, colour = "grey30"),
          plot.margin = margin(8, 8, 8, 8))
}
