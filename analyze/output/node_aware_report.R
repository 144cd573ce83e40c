# The node-aware exchange in the report (op node_aware_alltoallv, guideline
# LA): on how many nodes each deployment's runs had it, from the processes
# that shared memory (prov.json shared_memory_nodes, MPI_Comm_split_type);
# on one node it has no pair of nodes, and the report says what it is then.

node_aware_blocks <- function(result) {
  if (!"node_aware_alltoallv" %in% result$frame$cells$op) return(list())
  rows <- rbindlist(lapply(result$archives, function(a) {
    prov <- read_provenance(a)
    nodes <- vapply(prov, function(p) as.numeric(p$shared_memory_nodes %||% NA_real_), 0)
    runs <- a$runs[file.exists(file.path(a$dir, "results", paste0(run_id, ".prov.json")))]
    data.table(library = runs$library, deployment = runs$deployment, nodes = nodes)
  }))
  if (!nrow(rows)) return(list())
  s <- rows[, .(runs = .N, nodes = paste(sort(unique(ifelse(is.na(nodes), "not recorded", format(nodes)))),
                                         collapse = ", "),
                one = all(!is.na(nodes) & nodes == 1)), keyby = .(library, deployment)]
  s[, note := fifelse(one, "one node: no pair of nodes, every edge goes directly (the p2p_alltoallv exchange)", "")]
  c(list(heading("Node-aware exchange"),
         paragraph("`node_aware_alltoallv` (guideline LA): edges within a node go directly; between two nodes one ",
                   "message per node pair, packed by the pair's handler on the sending node and unpacked by the one ",
                   "on the receiving node (docs/kernel.md). A node is the processes that share memory ",
                   "(`MPI_Comm_split_type`, `shared_memory_nodes` in each run's provenance). On one node it ",
                   "degenerates: there is no pair of nodes and no handler has anything to do, so LA then compares ",
                   "the library with the hand-written exchange of p2p_alltoallv.")),
    list(table_block(s[, .(library, deployment, runs, `shared-memory nodes` = nodes, note)])))
}
