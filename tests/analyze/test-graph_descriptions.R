# The process graphs of an analysis: descriptions read from the archives'
# inputs/graphs/*.about.csv, shared files listed once, the p x p volume.

graph_archive <- function(dir) {
  g <- file.path(dir, "inputs", "graphs")
  dir.create(g, recursive = TRUE)
  writeLines(c("source,dest,count", "0,1,3", "1,0,3", "1,2,5", "2,1,5", "3,2,1"), file.path(g, "k-1.p4.s1.csv"))
  writeLines(c(paste(GRAPH_DESCRIPTION_COLUMNS, collapse = ","),
               "stencil3d n=4,k-1.p4.s1.csv,4,metis,1,64,352,5,0,1.25,2,0,4.25,8,7"),
             file.path(g, "k-1.p4.s1.about.csv"))
  list(dir = dir)
}

test_that("graph descriptions: one row per graph file, the same file of two archives once", {
  a <- graph_archive(tempfile("a-"))
  b <- graph_archive(tempfile("b-"))
  g <- graph_descriptions(list(a, b))
  expect_equal(nrow(g), 1L)
  expect_equal(g[, .(graph, p, rows, nonzeros, edges, degree_min, degree_mean, degree_max, entries_max, edge_cut)],
               data.table(graph = "stencil3d n=4", p = 4, rows = 64, nonzeros = 352, edges = 5, degree_min = 0,
                          degree_mean = 1.25, degree_max = 2, entries_max = 8, edge_cut = 7))
  expect_equal(nrow(graph_descriptions(list(list(dir = tempfile("none-"))))), 0L)
  shown <- graph_report_table(g)
  expect_equal(shown$`degree min/mean/max`, "0 / 1.25 / 2")
  expect_equal(shown$partition, "metis seed 1")
  geometric <- copy(g)[, `:=`(partition = "geometric", partition_seed = 0)]
  expect_equal(graph_report_table(geometric)$partition, "geometric")
})

test_that("the volume heat map has every edge of the graph file and is drawn as PNG and PDF", {
  g <- graph_descriptions(list(graph_archive(tempfile("a-"))))
  pd <- graph_volume_data(g)
  expect_equal(pd$data[, .(source, dest, count)],
               data.table(source = c(0L, 1L, 1L, 2L, 3L), dest = c(1L, 0L, 2L, 1L, 2L), count = c(3, 3, 5, 5, 1)))
  out <- tempfile("out-")
  dir.create(out)
  drawn <- render_plots(pd, graph_heatmap, out, width = 6, height = 5)
  expect_true(file.exists(file.path(out, drawn$png)))
  blocks <- graph_blocks(g, drawn, list(plots = TRUE))
  expect_equal(blocks[[1]]$text, "Process graphs")
  expect_match(blocks[[4]]$caption, "Communication volume: stencil3d n=4, p = 4")
})
