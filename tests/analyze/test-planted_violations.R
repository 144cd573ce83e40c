# A synthetic archive with noise (per run, per repetition, 2 % outliers of
# 2-6x) and three planted slowdowns (helper-analyze.R, planted_small):
#   P1  neighbor_allgather, cart, nfin=0, reorder=0, msize=1024, 1x4, x1.25
#       a side of GL4 (allgather <= alltoall) and GL9 (cart <= vneum FMAJ);
#       b side of GL12 (reorder=1 <= reorder=0): no violation there.
#   P2  neighbor_alltoall, vneum RAND, nfin=2, reorder=1, msize=16384, 2x4, x1.3
#       a side of GL12 only (b side of FMAJ <= RAND, not in GL9).
#   P3  neighbor_allgather, vneum FMAJ, nfin=0, reorder=0, msize=256, 1x4, x1.01
#       below the ratio threshold: nowhere a violation.
# Every other pair the guidelines compare has the same true time.

archive <- planted_archive()

test_that("the analyzer finds exactly the planted violations, and nothing else", {
  result <- analyze_archives(archive, root = nbh_root)
  expect_true(fsetequal(violated_cells(result), planted_expected))
  tt <- test_table(result)
  expect_equal(nrow(tt), 320L)
  # The sub-threshold slowdown P3 is there (ratio about 1.01) but not violated.
  p3 <- tt[tag == "GL4" & deployment == "1x4" & topology == "vneum" & order == "FMAJ" & nfin == 0L &
             reorder == 0L & msize == 256L]
  expect_equal(nrow(p3), 1L)
  expect_gt(p3$ratio, 1.0)
  expect_lt(p3$ratio, 1.03)
  expect_false(p3$violated)
  # The planted ratios come back (noise: per-run 1 %).
  expect_equal(tt[violated == TRUE & tag == "GL12", ratio], 1.3, tolerance = 0.02)
  expect_equal(tt[violated == TRUE & tag == "GL4", ratio], 1.25, tolerance = 0.02)
  expect_equal(tt[violated == TRUE, p_value], rep(1 / choose(16, 8), 3L))
})

test_that("summary counts: violated tests/tests and violated groups/groups per guideline and deployment", {
  s <- summary_table(analyze_archives(archive, root = nbh_root))
  expect_equal(s$tag, rep(c("GL4", "GL9", "GL11", "GL12"), each = 2L))
  expect_equal(s$deployment, rep(c("1x4", "2x4"), 4L))
  expect_equal(s$nprocs, rep(c(4L, 8L), 4L))
  expect_equal(s$n_vio_tests, c(1L, 0L, 1L, 0L, 0L, 0L, 0L, 1L))
  expect_equal(s$n_vio_groups, c(1L, 0L, 1L, 0L, 0L, 0L, 0L, 1L))
  # GL4: 3 neighborhoods x 2 nfin x 2 reorder x 4 msizes tests, groups without msize
  expect_equal(s$n_tests, rep(c(48L, 32L, 32L, 48L), each = 2L))
  expect_equal(s$n_groups, rep(c(12L, 8L, 8L, 12L), each = 2L))
})

test_that("a ~ b catches a slowdown of b that a <= b cannot see", {
  f <- tempfile(fileext = ".conf")
  writeLines(c("[orders]", "parameter = order", "varied = msize", "GL11: FMAJ <= RAND", "GL11: FMAJ ~ RAND"), f)
  result <- analyze_archives(archive, assess = f, root = nbh_root)
  tt <- test_table(result)
  expect_equal(tt[guideline_no == 1L & violated == TRUE, .N], 0L)
  v <- tt[guideline_no == 2L & violated == TRUE]
  expect_equal(nrow(v), 1L)
  expect_equal(v[, .(deployment, op, topology, nfin, reorder, msize, slower)],
               data.table(deployment = "2x4", op = "neighbor_alltoall", topology = "vneum", nfin = 2L,
                          reorder = 1L, msize = 16384L, slower = "b"))
  expect_equal(nrow(tt[guideline_no == 2L]), nrow(tt[guideline_no == 1L]))   # one test per pair
})

test_that("thresholds: a stricter v_thres or p_thres removes the planted violations", {
  expect_equal(nrow(violated_cells(analyze_archives(archive, v_thres = 1.5, root = nbh_root))), 0L)
  expect_equal(nrow(violated_cells(analyze_archives(archive, p_thres = 1e-5, root = nbh_root))), 0L)
})
