# Release regression (analyze/assess/regression.R): the matching of cells, the
# verdicts on hand-computed cases, and whole regressions of synthetic
# archives with a planted slowdown.

PARAMS <- c("library", "param_set", "deployment", "nprocs", "op", "order", "msize")

cells_with <- function(library, param_set = "default", order = c("FMAJ", NA), msize = c(256L, 1024L)) {
  x <- CJ(library = library, param_set = param_set, deployment = "1x4", nprocs = 4L, op = "neighbor_alltoall",
          order = order, msize = msize, sorted = FALSE)
  make_cells(x)
}

test_that("the key keeps library and param_set when the sides share a value, else leaves them out", {
  same <- regression_key(cells_with("openmpi"), cells_with("openmpi"), PARAMS)
  expect_equal(same, list(key = PARAMS, left_out = character()))
  across <- regression_key(cells_with("openmpi5", "tuned"), cells_with("openmpi"), PARAMS)
  expect_equal(across$left_out, c("library", "param_set"))
  expect_equal(across$key, setdiff(PARAMS, c("library", "param_set")))
  # Several new libraries against one baseline library: each is compared with it.
  expect_equal(regression_key(cells_with(c("openmpi5", "mpich5")), cells_with("openmpi"), PARAMS)$left_out,
               "library")
  # A baseline's one parameter set stands for every new set; where the new
  # archives have that set only, nothing changes and it stays in the key.
  expect_equal(regression_key(cells_with("openmpi", c("default", "tuned")), cells_with("openmpi"), PARAMS)$left_out,
               "param_set")
  expect_equal(regression_key(cells_with("openmpi"), cells_with("openmpi"), PARAMS)$left_out, character())
  expect_equal(regression_key(cells_with("openmpi", c("default", "tuned")), cells_with("openmpi", c("default", "x")),
                              PARAMS)$left_out, character())
  # A shared library keeps the key, whatever else either side has.
  expect_equal(regression_key(cells_with(c("openmpi", "mpich")), cells_with(c("openmpi", "mpich5")),
                              PARAMS)$left_out, character())
})

test_that("a baseline with several libraries and none in common is refused in one line", {
  expect_error(regression_key(cells_with("openmpi5"), cells_with(c("openmpi", "mpich")), PARAMS),
               "--baseline: the baseline has library openmpi, mpich and the new archives openmpi5; .*must have one",
               class = "nbh_input_error")
})

test_that("cells match on the key, NA matching NA; the rest is listed per side", {
  new <- cells_with("openmpi", order = c("FMAJ", NA), msize = c(256L, 1024L, 4096L))   # 6 cells
  old <- cells_with("openmpi", order = c("FMAJ", NA, "RAND"), msize = c(256L, 1024L))  # 6 cells
  m <- match_regression_cells(new, old, PARAMS)
  expect_equal(nrow(m$pairs), 4L)
  both <- m$pairs[, .(new_order = new$order[new_cell], old_order = old$order[old_cell],
                      new_msize = new$msize[new_cell], old_msize = old$msize[old_cell])]
  expect_equal(both$new_order, both$old_order)   # NA with NA included
  expect_equal(sum(is.na(both$new_order)), 2L)
  expect_equal(both$new_msize, both$old_msize)
  expect_equal(new$msize[m$new_only], c(4096L, 4096L))
  expect_equal(old$order[m$old_only], c("RAND", "RAND"))
})

test_that("two new parameter sets against the baseline's one: a baseline cell has two partners", {
  new <- cells_with("openmpi", c("default", "tuned"))
  old <- cells_with("openmpi")
  key <- regression_key(new, old, PARAMS)
  m <- match_regression_cells(new, old, key$key)
  expect_equal(nrow(m$pairs), 8L)
  expect_equal(sort(m$pairs$new_cell), 1:8)
  expect_equal(as.vector(table(m$pairs$old_cell)), rep(2L, 4L))
  expect_true(all(new$order[m$pairs$new_cell] %in% old$order[m$pairs$old_cell] | is.na(new$order[m$pairs$new_cell])))
})

test_that("across libraries, the cells match without the library", {
  new <- cells_with("openmpi5")
  old <- cells_with("openmpi")
  key <- regression_key(new, old, PARAMS)
  m <- match_regression_cells(new, old, key$key)
  expect_equal(m$pairs, data.table(new_cell = 1:4, old_cell = 1:4))
  expect_length(m$new_only, 0L)
  expect_length(m$old_only, 0L)
})

test_that("verdicts: both thresholds for slower and faster, cannot detect, not measured", {
  v <- regression_verdict(ratio = c(1.2, 1.2, 1.02, 1 / 1.2, 1.5, 1.5, NA),
                          p_slower = c(1e-4, 0.01, 1e-4, 0.99, 0.05, 0.05, NA),
                          p_faster = c(0.99, 0.9, 0.99, 1e-4, 0.9, 0.9, NA),
                          min_p = c(1 / 12870, 1 / 12870, 1 / 12870, 1 / 12870, 0.05, 1 / 12870, NA),
                          runs_new = c(8L, 8L, 8L, 8L, 3L, 8L, 0L), runs_old = c(8L, 8L, 8L, 8L, 3L, 8L, 8L),
                          p_thres = 0.001, v_thres = 1.03)
  expect_equal(v, c("slower", "no change", "no change", "faster", "cannot detect", "no change", "not measured"))
  # The thresholds are inclusive, as for the guidelines.
  expect_equal(regression_verdict(1.03, 0.001, 1, 1e-5, 8L, 8L, 0.001, 1.03), "slower")
})

test_that("regression_tests: the rank-sum p, the ratio and its interval on a hand-computed pair", {
  new <- make_cells(library = "b", param_set = "default", deployment = "1x4", nprocs = 4L, op = "x",
                    order = NA_character_, msize = c(256L, 1024L))
  old <- copy(new)[, library := "a"]
  # Cell 1: every new run above every baseline run: W = 64, p = 1 / choose(16, 8).
  # Cell 2: three runs a side: the smallest reachable p is 1 / choose(6, 3) = 0.05.
  new_medians <- make_medians(list(`1` = 2 + (0:7) / 10, `2` = c(1, 2, 3)))
  old_medians <- make_medians(list(`1` = 1 + (0:7) / 10, `2` = c(1, 2, 3)))
  pairs <- data.table(new_cell = 1:2, old_cell = 1:2)
  key <- setdiff(PARAMS, "library")
  t <- regression_tests(pairs, new, old, new_medians, old_medians, key)
  expect_equal(t$runs_new, c(8L, 3L))
  expect_equal(t$p_slower[1], 1 / choose(16, 8))
  expect_equal(t$p_slower[1], wilcox.test(2 + (0:7) / 10, 1 + (0:7) / 10, alternative = "greater")$p.value)
  expect_equal(t$p_faster[1], 1)
  expect_equal(t$ratio, c(2.35 / 1.35, 1))
  expect_equal(t$min_p, c(1 / choose(16, 8), 1 / choose(6, 3)))
  expect_equal(t$verdict, c("slower", "cannot detect"))
  expect_equal(t$method, c("unpaired", "unpaired"))   # no interleaved launches: the exact rank-sum test
  expect_true(all(is.na(t$pairs)) && all(is.na(t$df)))
  # the interval of the same rank-sum test (Moses), as wilcox.test gives it
  ci <- exp(as.numeric(wilcox.test(log(2 + (0:7) / 10), log(1 + (0:7) / 10), conf.int = TRUE)$conf.int))
  expect_equal(c(t$ratio_ci_low[1], t$ratio_ci_high[1]), ci)
  expect_true(t$ratio_ci_low[1] < t$ratio[1] && t$ratio[1] < t$ratio_ci_high[1])
  expect_true(is.na(t$ratio_ci_low[2]))   # 3 runs a side: no 95 % interval
  # Holm over the four tests (each cell slower and faster): the smallest p
  # times 4; the smallest reachable p times the number of tests (4).
  h <- regression_tests(pairs, new, old, new_medians, old_medians, key, adjust = "holm")
  expect_equal(h$p_slower, p.adjust(c(t$p_slower, t$p_faster), "holm")[1:2])
  expect_equal(h$p_faster, p.adjust(c(t$p_slower, t$p_faster), "holm")[3:4])
  expect_equal(h$min_p, pmin(4 * t$min_p, 1))
})

# Synthetic archives of the small campaign, one deployment: the new one
# with one cell planted 1.3x slower and one 1.3x faster.
SLOW <- list(op = "neighbor_alltoall", topology = "cart", nfin = 0, reorder = 0, msize = 4096)
FAST <- list(op = "neighbor_allgather", topology = "vneum", order = "FMAJ", nfin = 2, reorder = 1, msize = 256)
experiments <- synthetic_experiments("small", nrep = 20L)
archive_of <- function(library, planted = list(), seed, experiments_of = experiments, campaign = "synthetic") {
  dir <- file.path(tempfile("regression-"), library)
  write_synthetic_archive(dir, experiments_of, deployments = "1x4", nrun = 8L, library = library, planted = planted,
                          seed = seed, inputs = FALSE, campaign = campaign)
  dir
}
baseline <- archive_of("openmpi", seed = 31L)
newer <- archive_of("openmpi", list(list(where = SLOW, factor = 1.3), list(where = FAST, factor = 1 / 1.3)), seed = 32L)
cell_of <- function(rows) rows[, .(op, topology, order, nfin, reorder, msize)]

test_that("two archives of one library: exactly the planted cells are slower and faster", {
  result <- analyze_archives(newer, root = nbh_root)
  r <- regress_archives(result, baseline)
  t <- r$table
  expect_equal(r$left_out, character())
  expect_equal(nrow(t), nrow(experiments))
  expect_equal(t[, .N, keyby = verdict]$verdict, c("faster", "no change", "slower"))
  expect_equal(cell_of(t[verdict == "slower"]), data.table(op = SLOW$op, topology = "cart", order = NA_character_,
                                                            nfin = 0L, reorder = 0L, msize = 4096L))
  expect_equal(cell_of(t[verdict == "faster"]), data.table(op = FAST$op, topology = "vneum", order = "FMAJ",
                                                            nfin = 2L, reorder = 1L, msize = 256L))
  expect_equal(t[verdict == "slower", ratio], 1.3, tolerance = 0.03)
  expect_equal(t[verdict == "faster", ratio], 1 / 1.3, tolerance = 0.03)
  expect_true(all(t$ratio_ci_low < t$ratio & t$ratio < t$ratio_ci_high))
  expect_true(all(t[verdict == "slower", .(ratio_ci_low > 1.03, p_slower <= 0.001)]))
  expect_equal(unique(t$library_baseline), "openmpi")
  expect_true(has_regression(r))
  # Without a planted slowdown, nothing is slower.
  again <- regress_archives(analyze_archives(archive_of("openmpi", seed = 37L), root = nbh_root), baseline)
  expect_false(has_regression(again))
  expect_equal(again$table[verdict == "slower", .N], 0L)
})

test_that("across libraries the library is left out; cells on one side only are listed", {
  fewer <- experiments[msize != 16384L]
  more <- rbind(experiments, experiments[msize == 256L][, `:=`(msize = 65536L, id = id + 100000L)])
  old <- archive_of("openmpi", seed = 33L, experiments_of = fewer)
  new <- archive_of("openmpi5", seed = 34L, experiments_of = more)
  r <- regress_archives(analyze_archives(new, root = nbh_root), old)
  t <- r$table
  expect_equal(r$left_out, "library")
  expect_equal(t[verdict == "new only", sort(unique(msize))], c(16384L, 65536L))
  expect_equal(t[verdict == "new only", .N], 2L * nrow(experiments[msize == 256L]))
  expect_equal(t[verdict == "baseline only", .N], 0L)
  expect_equal(unique(t[verdict == "new only", library]), "openmpi5")
  tested <- t[!verdict %in% c("new only", "baseline only")]
  expect_equal(nrow(tested), nrow(fewer))
  expect_equal(unique(tested[, .(library, library_baseline)]), data.table(library = "openmpi5",
                                                                         library_baseline = "openmpi"))
  # The other way round, the same cells are on the baseline's side only.
  back <- regress_archives(analyze_archives(old, root = nbh_root), new)$table
  expect_equal(back[verdict == "baseline only", .N], 2L * nrow(experiments[msize == 256L]))
  expect_equal(unique(back[verdict == "baseline only", library_baseline]), "openmpi5")
})

# Puts the runs of archive DIR into the interleaved sequence SEQUENCE, run k
# in slot k (runs.csv interleave and slot, as submit --interleave-with).
interleave_runs <- function(dir, sequence) {
  runs <- fread(file.path(dir, "runs.csv"))
  runs[, `:=`(interleave = sequence, slot = run)]
  Sys.chmod(file.path(dir, "runs.csv"), "644")
  fwrite(runs, file.path(dir, "runs.csv"))
}

test_that("releases whose launches were interleaved are paired by launch, else unpaired; the table and report say which", {
  old <- archive_of("openmpi", seed = 41L)
  new <- archive_of("openmpi5", list(list(where = SLOW, factor = 1.3)), seed = 42L)
  apart <- regress_archives(analyze_archives(new, root = nbh_root), old)
  expect_setequal(unique(apart$table$method), "unpaired")
  expect_true(all(is.na(apart$table$pairs)))
  interleave_runs(old, "releases-1")
  interleave_runs(new, "releases-1")
  result <- suppressWarnings(analyze_archives(new, root = nbh_root))
  r <- regress_archives(result, old)
  t <- r$table
  expect_setequal(unique(t$method), "launches")
  expect_true(all(t$pairs == 8L) && all(t$df == 7L))
  expect_equal(t[verdict == "slower", .N], 1L)
  expect_equal(cell_of(t[verdict == "slower"])$msize, 4096L)
  # one cell against its reference: the t test of the 8 pairs' log ratios of run medians
  one <- t[verdict == "slower"]
  cell_new <- result$frame$cells[one[, r$key, with = FALSE], on = r$key, cell]
  old_result <- suppressWarnings(analyze_archives(old, root = nbh_root))
  cell_old <- old_result$frame$cells[one[, r$key, with = FALSE], on = r$key, cell]
  expect_length(c(cell_new, cell_old), 2L)
  a <- result$medians[cell == cell_new][order(run)]$median
  b <- old_result$medians[cell == cell_old][order(run)]$median
  expect_equal(one$p_slower, t.test(log(a / b), alternative = "greater")$p.value)
  expect_equal(one$ratio, exp(mean(log(a / b))))
  expect_equal(one$min_p, 0)
  # The report says how the cells were tested.
  said <- regression_method_text(t)
  expect_match(said, sprintf("^tests: %d cells \\*\\*paired by launch\\*\\* \\(`launches`", nrow(t)))
  expect_match(said, "over the 8 pairs")
  expect_match(regression_method_text(apart$table), "cells \\*\\*unpaired\\*\\* \\(`unpaired`: the releases' launches were not")
  # Launches of two different sequences are not pairs.
  interleave_runs(old, "releases-2")
  expect_setequal(unique(regress_archives(result, old)$table$method), "unpaired")
})

test_that("bad baselines: another campaign, no common cell, the same archive", {
  result <- analyze_archives(newer, root = nbh_root)
  other <- archive_of("openmpi", seed = 35L, campaign = "elsewhere")
  expect_error(regress_archives(result, other),
               "--baseline: the baseline is of campaign elsewhere, the new archives of synthetic", class = "nbh_input_error")
  apart <- archive_of("openmpi", seed = 36L, experiments_of = copy(experiments)[, msize := msize + 1L])
  expect_error(regress_archives(result, apart), "--baseline: no cell of .* is in the baseline .*differ in msize",
               class = "nbh_input_error")
  expect_error(regress_archives(result, newer), "given twice", class = "nbh_input_error")
})

test_that("the plot data: one plot per context, a point per tested cell with a message size", {
  r <- regress_archives(analyze_archives(newer, root = nbh_root), baseline)
  pd <- regression_plot_data(r$table, analysis_parameters(read_registry(nbh_root))$name)
  expect_equal(nrow(pd$plots), 1L)
  expect_equal(nrow(pd$data), nrow(experiments))
  expect_equal(sort(unique(pd$data$op)), c("neighbor_allgather", "neighbor_alltoall"))
  expect_equal(pd$plots$slower, 1L)
  expect_equal(pd$plots$faster, 1L)
})
