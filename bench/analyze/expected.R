# The violations the planted slowdowns of the synthetic nbhcoll archive must
# cause, worked out from planted.csv without the analyzer: a planted cell
# violates a guideline where it is on the a side and its partner on the b
# side is not planted (every other pair has the same true time).
#   GL4  neighbor_allgather <= neighbor_alltoall (alltoall is never planted)
#   GL9  cart <= vneum FMAJ (radius 1, dist_graph_adjacent)
#   GL11 FMAJ <= RAND, LMAJ <= RAND
#   GL12 reorder=1 <= reorder=0
# Prints the expected number of violated tests: Rscript expected.R ARCHIVE
suppressPackageStartupMessages(library(data.table))
archive <- commandArgs(TRUE)[1]
ex <- fread(file.path(archive, "experiments.csv"), na.strings = "")
planted <- fread(file.path(archive, "planted.csv"))$id
deployments <- uniqueN(fread(file.path(archive, "runs.csv"))$deployment)
ex[, slow := id %in% planted]
partner_slow <- function(rows, changes) {
  partner <- copy(rows)
  for (name in names(changes)) set(partner, j = name, value = changes[[name]])
  keys <- c("op", "topology", "constructor", "ndim", "nfin", "radius", "order", "reorder", "msize")
  ex[partner, on = keys, slow]
}
a <- ex[slow == TRUE]
n <- nrow(a)                                                           # GL4
cart <- a[topology == "cart"]
n <- n + sum(!partner_slow(cart, list(topology = "vneum", constructor = "dist_graph_adjacent", radius = 1L,
                                      order = "FMAJ")))                  # GL9
for (o in c("FMAJ", "LMAJ")) {
  rows <- a[order == o]
  n <- n + sum(!partner_slow(rows, list(order = "RAND")))                # GL11
}
r1 <- a[reorder == 1L]
n <- n + sum(!partner_slow(r1, list(reorder = 0L)))                      # GL12
cat(n * deployments, "\n", sep = "")
