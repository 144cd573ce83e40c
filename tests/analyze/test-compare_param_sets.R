# The cross-set comparison on hand-made cells: op x at two message sizes
# under the reference set and under fixA (and fixB at one size only).
params <- c("library", "param_set", "deployment", "op", "msize")
cells <- make_cells(library = "lib", param_set = c("default", "default", "fixA", "fixA", "fixB"),
                    deployment = "1x2", op = "x", msize = c(1L, 2L, 1L, 2L, 1L))
fast <- c(1.0, 0.9, 1.05, 0.95, 1.02)   # median 1.0
slow <- c(1.1, 1.3, 1.2, 1.5, 1.4)      # median 1.3, all above fast

test_that("each cell of a set against the same cell of the reference: ratio, both p, slower and faster", {
  med <- make_medians(list(`1` = fast, `2` = slow, `3` = slow, `4` = fast, `5` = fast + 0.001))
  cmp <- compare_param_sets(cells, med, params, "default", p_thres = 0.01)
  expect_equal(cmp$param_set, c("fixA", "fixA", "fixB"))
  expect_equal(cmp$reference, rep("default", 3L))
  expect_equal(cmp$set_cell, c(3L, 4L, 5L))
  expect_equal(cmp$ref_cell, c(1L, 2L, 1L))
  expect_equal(cmp$ratio, c(1.3, 1 / 1.3, 1.001))
  expect_identical(cmp$p_slower[1], wilcox.test(slow, fast, alternative = "greater")$p.value)
  expect_identical(cmp$p_faster[1], wilcox.test(fast, slow, alternative = "greater")$p.value)
  expect_equal(cmp$p_slower[1], 1 / choose(10, 5))
  expect_equal(cmp$p_faster[2], 1 / choose(10, 5))
  expect_equal(cmp$slower, c(TRUE, FALSE, FALSE))     # fixA slower at msize 1
  expect_equal(cmp$faster, c(FALSE, TRUE, FALSE))     # fixA faster at msize 2
  expect_equal(c(cmp$runs_set, cmp$runs_ref), rep(5L, 6L))
  # The thresholds are the guidelines': at the default p_thres 5 runs cannot be significant.
  expect_false(any(unlist(compare_param_sets(cells, med, params, "default")[, .(slower, faster)])))
  expect_false(any(compare_param_sets(cells, med, params, "default", p_thres = 0.01, v_thres = 1.31)$slower))
})

test_that("the other way round, with another reference, and without other sets", {
  med <- make_medians(list(`1` = fast, `2` = slow, `3` = slow, `4` = fast, `5` = fast))
  cmp <- compare_param_sets(cells, med, params, "fixA", p_thres = 0.01)
  expect_equal(cmp[, .(param_set, set_cell, ref_cell, slower, faster)],
               data.table(param_set = c("default", "default", "fixB"), set_cell = c(1L, 2L, 5L),
                          ref_cell = c(3L, 4L, 3L), slower = c(FALSE, TRUE, FALSE), faster = c(TRUE, FALSE, TRUE)))
  expect_equal(nrow(compare_param_sets(cells[param_set == "default"], med, params, "default")), 0L)
  expect_named(compare_param_sets(cells, med, params, "default", sets = character()),
               c("param_set", "reference", "set_cell", "ref_cell", "runs_set", "runs_ref", "median_set",
                 "median_ref", "ratio", "ratio_ci_low", "ratio_ci_high", "method", "pairs", "df", "p_slower",
                 "p_faster", "slower", "faster"))
})

test_that("the reference set: --reference-set, else default, else the first", {
  expect_equal(reference_set(c("tuned", "default")), "default")
  expect_equal(reference_set(c("b256", "a3000")), "b256")
  expect_equal(reference_set(c("tuned", "default"), "tuned"), "tuned")
  expect_error(reference_set(c("default", "tuned"), "fast"),
               "^--reference-set: 'fast' is not a parameter set of the archives \\(sets: default, tuned\\)$",
               class = "nbh_input_error")
})

test_that("the cross-set comparison is exact with ties: 7 against 7 separated, one tie, p = 0.00107 (not the study's 0.00029)", {
  params <- c("library", "param_set", "deployment", "op", "msize")
  cells <- make_cells(library = "lib", param_set = c("default", "tuned"), deployment = "1x2", op = "x", msize = 1L)
  set_runs <- c(1.10, 1.11, 1.12, 1.13, 1.14, 1.15, 1.16)
  ref_runs <- c(1.00, 1.01, 1.02, 1.03, 1.04, 1.05, 1.10)   # its largest ties the set's smallest
  medians <- rbind(data.table(cell = 2L, run = 8:14, median = set_runs), data.table(cell = 1L, run = 1:7, median = ref_runs))
  setkeyv(medians, c("cell", "run"))
  cmp <- compare_param_sets(cells, medians, params, "default")
  expect_equal(cmp$method, "unpaired")
  # the exact conditional p: the share of the C(14, 7) = 3432 ways to pick 7 of the midranks whose sum
  # reaches the set's
  ranks <- rank(c(set_runs, ref_runs))
  sums <- combn(14, 7, function(i) sum(ranks[i]))
  expect_equal(cmp$p_slower, mean(sums >= sum(ranks[1:7]) - 1e-9))
  expect_equal(cmp$p_slower, 0.00107, tolerance = 0.005)
})
