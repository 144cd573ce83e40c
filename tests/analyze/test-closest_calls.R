# Closest calls on a hand-made test table: guideline 1 in two deployments
# and two parameter sets, guideline 2 in one deployment.
tt <- data.table(guideline_no = c(1L, 1L, 1L, 1L, 1L, 1L, 1L, 2L, 2L),
                 library = "lib", param_set = c("default", "default", "default", "default", "tuned", "tuned", "tuned",
                                                "default", "default"),
                 deployment = c("1x4", "1x4", "1x4", "2x4", "1x4", "1x4", "2x4", "1x4", "1x4"),
                 nprocs = c(4L, 4L, 4L, 8L, 4L, 4L, 8L, 4L, 4L),
                 test = 1:9, group = c(1L, 1L, 2L, 3L, 4L, 5L, 6L, 1L, 2L),
                 ratio = c(1.5, 1.02, 1.02, 0.99, 1.06, 1.06, 1.01, 1.04, 1.2),
                 p_value = c(1e-5, 0.2, 0.01, 0.6, 0.002, 0.02, 1e-4, 0.0005, 0.0005),
                 violated = c(TRUE, FALSE, FALSE, FALSE, FALSE, FALSE, FALSE, FALSE, TRUE))

test_that("per guideline and context the largest ratio that is not violated; ties: the smaller p", {
  c <- closest_calls(tt, p_thres = 0.001, v_thres = 1.03)
  expect_equal(c[, .(guideline_no, param_set, deployment, test)],
               data.table(guideline_no = c(1L, 1L, 1L, 1L, 2L), param_set = c("default", "default", "tuned", "tuned", "default"),
                          deployment = c("1x4", "2x4", "1x4", "2x4", "1x4"), test = c(3L, 4L, 5L, 7L, 8L)))
  expect_equal(c$short_of, c("ratio and p", "ratio and p", "p", "ratio", "p"))
})

test_that("short of: the edge of a threshold counts as reached, as in the verdict", {
  edge <- tt[test == 2L][, `:=`(ratio = 1.03, p_value = 0.002)]
  expect_equal(closest_calls(edge, p_thres = 0.001, v_thres = 1.03)$short_of, "p")
  expect_equal(closest_calls(edge[, p_value := 0.001], p_thres = 0.001, v_thres = 1.0300001)$short_of, "ratio")
})

test_that("plots: per guideline, library and deployment without violations, the closest call of the largest ratio", {
  c <- closest_calls(tt, p_thres = 0.001, v_thres = 1.03)
  # guideline 1 in 1x4 and guideline 2 have violations; guideline 1 in 2x4: tuned's 1.01 over default's 0.99
  expect_equal(closest_call_plots(tt, c), data.table(guideline_no = 1L, group = 6L, test = 7L))
  # Without the violations every guideline, library and deployment has one, largest ratio first.
  expect_equal(closest_call_plots(tt[violated == FALSE], c)$test, c(5L, 8L, 7L))
})
