# The communication volume of a process graph (SPEC 7.2): a p x p heat map,
# cell (source, dest) coloured by the entries source sends to dest (log
# scale); empty cells send nothing. Draws what analyze/input/graph_descriptions.R read.

graph_heatmap <- function(plot, data) {
  ggplot(data, aes(x = dest, y = source, fill = count)) +
    geom_tile() +
    scale_fill_viridis_c(trans = "log10", name = "entries") +
    scale_x_continuous(limits = c(-0.5, plot$p - 0.5), expand = c(0, 0)) +
    scale_y_reverse(limits = c(plot$p - 0.5, -0.5), expand = c(0, 0)) +
    coord_fixed() +
    labs(title = plot$title, x = "destination rank", y = "source rank",
         caption = wrap_text(plot$caption, 80)) +
    theme_bw(base_size = 11) +
    theme(plot.caption = element_text(hjust = 0, size = 8, colour = "grey30"), panel.grid = element_blank(),
          plot.title.position = "plot")
}
