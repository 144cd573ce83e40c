# results/RUN.order.csv (docs/archive.md): each round's measured order, read
# per run into the runs' cells; archives made before it give an empty table.

order_archive <- function() {
  dir <- planted_archive(nrun = 2L, blocks = 2L)
  registry <- read_registry(nbh_root)
  params <- analysis_parameters(registry)
  archives <- list(read_archive(dir, registry))
  frame <- combine_archives(archives, params)
  medians <- suppressWarnings(reduce_runs(archives, frame, cores = 1L))
  list(dir = dir, archives = archives, frame = frame, medians = medians)
}

test_that("each round's attempt and place in its measured order land in the run's cells", {
  a <- order_archive()
  expect_equal(nrow(read_round_orders(a$archives, a$frame, a$medians)), 0L)   # an archive before order.csv
  run <- a$archives[[1]]$runs$run_id[1]
  ids <- a$archives[[1]]$experiments$id
  # round 1 in the experiments' order, round 2 reversed; attempt 1 throughout
  fwrite(data.table(round = rep(1:2, each = length(ids)), attempt = 1L,
                    position = rep(seq_along(ids), 2L), id = c(ids, rev(ids))),
         file.path(a$dir, "results", paste0(run, ".order.csv")))
  x <- read_round_orders(a$archives, a$frame, a$medians)
  expect_equal(names(x), c("cell", "run", "round", "attempt", "position"))
  expect_equal(key(x), c("cell", "run", "round"))
  expect_equal(uniqueN(x$run), 1L)
  expect_equal(nrow(x), 2L * nrow(unique(a$medians[run == x$run[1], .(cell)])))
  first <- a$frame$cells[exp == a$frame$ids[id == ids[1], exp], cell][1]
  expect_equal(x[cell == first, position], c(1L, length(ids)), info = "first in round 1, last in round 2")
  expect_equal(unique(x$attempt), 1L)
})

test_that("rows that are no round, attempt and place are left out with a warning", {
  a <- order_archive()
  run <- a$archives[[1]]$runs$run_id[1]
  ids <- a$archives[[1]]$experiments$id
  fwrite(data.table(round = c(1L, 0L), attempt = 1L, position = c(1L, 2L), id = ids[1:2]),
         file.path(a$dir, "results", paste0(run, ".order.csv")))
  w <- warnings_of(x <- read_round_orders(a$archives, a$frame, a$medians))
  expect_match(w, "^1 row\\(s\\) of results/RUN.order.csv are not a round, an attempt and a position; left out$")
  expect_equal(x$round, 1L)
})
