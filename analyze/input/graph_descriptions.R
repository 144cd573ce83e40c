# The process graphs of an analysis (topology graph, docs/kernel.md "Graph
# file"): generate wrote, beside each run's input, one graph file
# inputs/graphs/<key>.p<P>.s<seed>.csv (source,dest,count) and its
# description <same stem>.about.csv; the archive keeps both.
#   graph_descriptions  one row per graph file of the archives (graphs.csv)
#   graph_volume_data   per graph file, the p x p matrix of entries sent, for
#                       plots/graph_heatmap.R (render_plots' plots/data shape)

GRAPH_DESCRIPTION_COLUMNS <- c("graph", "file", "p", "partition", "partition_seed", "rows", "nonzeros", "edges",
                               "degree_min", "degree_mean", "degree_max", "entries_min", "entries_mean",
                               "entries_max", "edge_cut")

graph_description_files <- function(archive) {
  sort(list.files(file.path(archive$dir, "inputs", "graphs"), pattern = "\\.about\\.csv$", full.names = TRUE))
}

graph_descriptions <- function(archives) {
  rows <- rbindlist(lapply(archives, function(a) {
    rbindlist(lapply(graph_description_files(a), function(f) {
      x <- read_table(f, GRAPH_DESCRIPTION_COLUMNS)[, GRAPH_DESCRIPTION_COLUMNS, with = FALSE]
      x[, graph_file := file.path(dirname(f), file)]
    }))
  }))
  if (!nrow(rows)) return(data.table())
  ints <- c("p", "partition_seed", "rows", "nonzeros", "edges", "degree_min", "degree_max", "entries_min",
            "entries_max", "edge_cut")
  for (col in ints) set(rows, j = col, value = as.numeric(rows[[col]]))
  for (col in c("degree_mean", "entries_mean")) set(rows, j = col, value = as.numeric(rows[[col]]))
  rows <- unique(rows, by = c("graph", "file"))  # two libraries' archives of one campaign share the files
  setorder(rows, graph, p, partition_seed)
  rows
}

# The table report.html shows (entries: what a process sends in all; times
# msize they are its bytes).
graph_report_table <- function(graphs) {
  span <- function(lo, mean, hi) sprintf("%s / %s / %s", format(lo, big.mark = ","), format(mean, nsmall = 1L),
                                         format(hi, big.mark = ","))
  graphs[, .(graph, p, partition = ifelse(partition == "metis", paste0("metis seed ", partition_seed), partition),
             rows = ifelse(is.na(rows), "", format(rows, big.mark = ",")),
             nonzeros = ifelse(is.na(nonzeros), "", format(nonzeros, big.mark = ",")),
             edges, `degree min/mean/max` = span(degree_min, degree_mean, degree_max),
             `entries sent min/mean/max` = span(entries_min, entries_mean, entries_max),
             `edge cut` = ifelse(is.na(edge_cut), "", format(edge_cut, big.mark = ",")))]
}

graph_volume_data <- function(graphs) {
  if (!nrow(graphs)) return(list(plots = data.table(), data = data.table()))
  plots <- graphs[, .(plot = seq_len(.N), file = paste0("graph-", sub("\\.csv$", "", file)),
                      title = paste0(graph, ", p = ", p), p, graph_file,
                      caption = sprintf("%s edges; entries sent per process %s..%s (bytes = entries x msize)",
                                        edges, entries_min, entries_max))]
  data <- rbindlist(lapply(seq_len(nrow(plots)), function(i) {
    f <- plots$graph_file[i]
    if (!file.exists(f)) input_error(f, ": missing (its description ", sub("\\.csv$", ".about.csv", f), " names it)")
    e <- read_table(f, c("source", "dest", "count"))
    data.table(plot = i, source = as.integer(e$source), dest = as.integer(e$dest), count = as.numeric(e$count))
  }))
  list(plots = plots, data = data)
}
