# The heal table on the tuning archive of helper-analyze.R (sets default,
# fixA, fixB; planted cells X, Y, Z, W): the answers are known.
archive <- tuning_archive()
result <- analyze_archives(archive, root = nbh_root)
tt <- test_table(result)
tuning <- tuning_tables(result, tt)
cell_of <- function(rows) rows[, .(deployment, op, topology, order, nfin, reorder, msize)]
planted_cell <- function(name, sets) {
  p <- tuning_cells[[name]]
  data.table(param_set = sets, deployment = p$deployment, op = p$op, topology = p$topology,
             order = p$order %||% NA_character_, nfin = as.integer(p$nfin), reorder = as.integer(p$reorder),
             msize = as.integer(p$msize))
}

test_that("the sets in campaign order, default the reference", {
  expect_equal(result$param_sets, c("default", "fixA", "fixB"))
  expect_equal(result$reference_set, "default")
})

test_that("heal.csv rows: fixA removes X's violations and adds Y's, fixB keeps X's", {
  h <- tuning$heal
  expect_equal(h[, .(param_set, status, tag, deployment, op, topology, order, nfin, reorder, msize)],
               data.table(param_set = c("fixA", "fixA", "fixA", "fixB", "fixB"),
                          status = c("removed", "removed", "added", "kept", "kept"),
                          tag = c("GL4", "GL9", "GL12", "GL4", "GL9"),
                          deployment = c("1x4", "1x4", "2x4", "1x4", "1x4"),
                          op = c(NA, "neighbor_allgather", "neighbor_alltoall", NA, "neighbor_allgather"),
                          topology = c("cart", NA, "vneum", "cart", NA), order = c(NA, NA, "RAND", NA, NA),
                          nfin = c(0L, 0L, 2L, 0L, 0L), reorder = c(0L, 0L, NA, 0L, 0L),
                          msize = c(1024L, 1024L, 16384L, 1024L, 1024L)))
  expect_equal(h$reference, rep("default", 5L))
  expect_equal(h$ref_ratio[c(1, 2, 4, 5)], rep(1.3, 4L), tolerance = 0.02)   # X under default
  expect_lt(max(h$ratio[1:2]), 1.03)                                        # X under fixA: healed
  expect_equal(h$ratio[3:5], rep(1.3, 3L), tolerance = 0.02)                # Y under fixA, X under fixB
  expect_lt(h$ref_ratio[3], 1.03)                                           # Y under default
  expect_equal(h$p_value[3:5], rep(1 / choose(16, 8), 3L))
  # The same as the test table says per set.
  expect_equal(tt[violated == TRUE, .N, keyby = param_set]$N, c(2L, 1L, 2L))
})

test_that("heal_sets: per set and deployment, removed, kept, added, and the cells slower and faster", {
  s <- tuning$sets
  expect_equal(s[, .(param_set, deployment, ref_violations, removed, kept, not_measured, added, cells,
                     cells_slower, cells_faster)],
               data.table(param_set = c("fixA", "fixA", "fixB", "fixB"), deployment = c("1x4", "2x4", "1x4", "2x4"),
                          ref_violations = c(2L, 0L, 2L, 0L), removed = c(2L, 0L, 0L, 0L), kept = c(0L, 0L, 2L, 0L),
                          not_measured = 0L, added = c(0L, 1L, 0L, 0L), cells = 96L,
                          cells_slower = c(1L, 1L, 0L, 0L), cells_faster = c(1L, 0L, 0L, 1L)))
  expect_equal(s$max_ratio[1:2], c(1.3, 1.3), tolerance = 0.02)           # Z, Y
  expect_equal(s$min_ratio[c(1, 4)], c(1 / 1.3, 0.7), tolerance = 0.02)   # X, W
  expect_lt(max(s$max_ratio[3:4]), 1.03)
})

test_that("set_comparison: the slower and faster cells are exactly the planted ones", {
  cmp <- tuning$comparison
  expect_equal(nrow(cmp), 2L * 2L * 96L)
  slower <- cmp[slower == TRUE][order(param_set, deployment)]
  faster <- cmp[faster == TRUE][order(param_set, deployment)]
  expect_equal(slower[, .(param_set, deployment, op, topology, order, nfin, reorder, msize)],
               rbind(planted_cell("Z", "fixA"), planted_cell("Y", "fixA")))
  expect_equal(faster[, .(param_set, deployment, op, topology, order, nfin, reorder, msize)],
               rbind(planted_cell("X", "fixA"), planted_cell("W", "fixB")))
  expect_equal(slower$p_slower, rep(1 / choose(16, 8), 2L))
  expect_equal(slower$ratio, slower$median_set_us / slower$median_reference_us)
})

test_that("`fixA <= default` in an assessment finds the slower cells of the cross-set comparison", {
  f <- assessment_file("[tuning]", "parameter = param_set", "varied = msize", "fixA <= default", "fixB <= default",
                       "default <= fixA")
  w <- warnings_of(r <- analyze_archives(archive, f, root = nbh_root))
  expect_length(w, 0L)
  t <- test_table(r)
  expect_true(all(is.na(t$param_set)))
  expect_equal(t[, .N, by = guideline_no]$N, rep(192L, 3L))
  cmp <- r$set_comparison
  expect_equal(t[guideline_no == 1L & violated == TRUE, sort(a_cell)], cmp[param_set == "fixA" & slower == TRUE, sort(set_cell)])
  expect_equal(t[guideline_no == 2L & violated == TRUE, .N], 0L)
  expect_equal(t[guideline_no == 3L & violated == TRUE, sort(b_cell)], cmp[param_set == "fixA" & faster == TRUE, sort(set_cell)])
  expect_equal(t[guideline_no == 1L][order(a_cell), p_value], cmp[param_set == "fixA"][order(set_cell), p_slower])
  # Guidelines that compare the sets have no place in the heal table.
  expect_equal(nrow(tuning_tables(r, t)$heal), 0L)
})

test_that("--reference-set fixA: default and fixB remove Y's violation and add X's", {
  r <- analyze_archives(archive, root = nbh_root, reference_set = "fixA")
  expect_equal(r$reference_set, "fixA")
  h <- tuning_tables(r, test_table(r))$heal
  expect_equal(h[, .(param_set, status, tag, deployment)],
               data.table(param_set = c("default", "default", "default", "fixB", "fixB", "fixB"),
                          status = c("removed", "added", "added", "removed", "added", "added"),
                          tag = c("GL12", "GL4", "GL9", "GL12", "GL4", "GL9"),
                          deployment = c("2x4", "1x4", "1x4", "2x4", "1x4", "1x4")))
  expect_error(analyze_archives(archive, root = nbh_root, reference_set = "fixC"),
               "--reference-set: 'fixC' is not a parameter set of the archives \\(sets: default, fixA, fixB\\)",
               class = "nbh_input_error")
})

test_that("the report and the CSV files: what heals what", {
  dir <- tempfile("out-")
  write_outputs(result, list(out = dir, plots = FALSE, created = "now", version = "test"))
  h <- fread(file.path(dir, "heal.csv"), na.strings = "")
  expect_equal(names(h), c("reference", "param_set", "status", "guideline_no", "tag", "guideline", "relation", "varied",
                           setdiff(result$params$name, "param_set"), "a_params", "b_params", "ref_ratio",
                           "ref_p_value", "ratio", "p_value"))
  expect_equal(h$status, c("removed", "removed", "added", "kept", "kept"))
  s <- fread(file.path(dir, "heal_sets.csv"), na.strings = "")
  expect_equal(names(s), c("reference", "param_set", "library", "deployment", "nprocs", "ref_violations", "removed",
                           "no_longer_significant", "kept", "not_measured", "added", "cells", "cells_slower",
                           "cells_faster", "max_ratio", "min_ratio"))
  cmp <- fread(file.path(dir, "set_comparison.csv"), na.strings = "")
  expect_equal(nrow(cmp), 384L)
  expect_equal(sum(cmp$slower), 2L)
  md <- readLines(file.path(dir, "report.md"))
  expect_true("## Parameter sets: what heals what" %in% md)
  expect_true(any(grepl("^- parameter sets: `default`, `fixA`, `fixB`; reference: `default`$", md)))
  expect_true(any(grepl("| fixA | openmpi 1x4 | 2 | 2 | 0 | 0 | 0 | 0 | 1 | 1 | 96 |", md, fixed = TRUE)))
  expect_true(any(grepl("| fixA | openmpi 2x4 | 0 | 0 | 0 | 0 | 0 | 1 | 1 | 0 | 96 |", md, fixed = TRUE)))
  expect_match(md, "^\\| GL4: neighbor_allgather <= neighbor_alltoall \\| openmpi 1x4 \\| .* \\| msize=1024 \\| fixA \\| yes \\(holds\\) \\| 1\\.[23][0-9]* \\(p = 7\\.8e-05\\) \\|",
               all = FALSE)
  expect_match(md, "^\\| GL9: .* \\| msize=1024 \\| fixB \\| no \\|", all = FALSE)
  expect_match(md, "^\\| fixA \\| GL12: reorder=1 <= reorder=0 \\| openmpi 2x4 \\| .* \\| msize=16384 \\|", all = FALSE)
  expect_match(md, "^\\| fixA \\| openmpi 1x4 \\| op=neighbor_alltoall, topology=vneum, .*order=RAND, reorder=0, .*msize=256", all = FALSE)
})

test_that("one parameter set: no heal section, and no heal files (they would be empty)", {
  dir <- tempfile("out-")
  r <- analyze_archives(planted_archive(), root = nbh_root)
  write_outputs(r, list(out = dir, plots = FALSE, created = "now", version = "test"))
  expect_false("## Parameter sets: what heals what" %in% readLines(file.path(dir, "report.md")))
  for (f in c("heal.csv", "heal_sets.csv", "set_comparison.csv")) expect_false(file.exists(file.path(dir, f)))
  expect_true(file.exists(file.path(dir, "summary.csv")))
})

test_that("a violation is removed only where the set's test holds; an open one is no longer significant", {
  row <- function(set, ratio, p, violated, decision, msize) {
    data.table(guideline_no = 1L, tag = "GL8", guideline = "alltoall <= neighbor_alltoall", relation = "<=",
               varied = "msize", library = "lib", param_set = set, deployment = "1x2", nprocs = 2L, msize = msize,
               a_params = "op=alltoall", b_params = "op=neighbor_alltoall", ratio = ratio, p_value = p,
               violated = violated, decision = decision)
  }
  tt <- rbind(row("default", 1.4, 1e-5, TRUE, "violated", 1L), row("default", 1.5, 1e-5, TRUE, "violated", 2L),
              row("tuned", 1.01, 0.3, FALSE, "holds", 1L), row("tuned", 1.18, 0.0019, FALSE, "open", 2L))
  h <- heal_table(tt, c("library", "param_set", "deployment", "nprocs", "msize"), "default", "tuned")
  expect_equal(h$status, c("removed", "no longer significant"))
  s <- heal_summary(h, data.table(param_set = character(), library = character(), deployment = character(),
                                  nprocs = integer(), slower = logical(), faster = logical(), ratio = numeric()),
                    "default", "tuned")
  expect_equal(s[, .(removed, no_longer_significant, kept)],
               data.table(removed = 1L, no_longer_significant = 1L, kept = 0L))
})
