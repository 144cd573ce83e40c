# The plan of repetitions (analyze/assess/plan_repetitions.R) on what the
# re-measured demo of issue 34 gave (docs/examples/demo): contexts whose
# launches add no variance, and the cost of a launch where two archives'
# launches were interleaved. Both tests fail on the analyzer of 24897fa
# (reported to the lead with the demo's plan.csv as the reproduction).

test_that("a context whose launches add no variance plans without an R warning", {
  # The demo's GL9 under MPICH: var_launch 0 (the ANOVA estimate clipped at
  # 0). The K* branch of fifelse was evaluated for it too, as.integer(Inf),
  # and "NAs introduced by coercion to integer range" went to warnings.txt.
  tt <- data.table(guideline_no = 1L, tag = "GL9", guideline = "a <= b", library = "mpich", param_set = "default",
                   deployment = "1x4", nprocs = 4L, method = "paired", runs_a = 10L, pairs = 70L,
                   var_launch = 0, var_round = 2.19, launch_share = 0)
  costs <- data.table(library = "mpich", param_set = "default", deployment = "1x4", nprocs = 4L,
                      kernel = 13.5, launch = 1)
  expect_warning(plan <- plan_repetitions(tt, costs, 1.03), NA)
  expect_equal(plan$best_rounds, plan$rounds_needed)
})

test_that("a launch costs the time between runs, not the other archive's runs between them", {
  # Two archives whose runs were submitted as one interleaved sequence
  # (submit --interleave-with): a 3 s run of x, 1 s, a 13 s run of y, 1 s,
  # the next run of x, ... Each launch costs 1 s; the gap between two runs
  # of x also holds a run of y (15 s), and of y one of x (5 s).
  root <- withr::local_tempdir()
  t0 <- as.POSIXct("2026-11-29 04:42:00", tz = "UTC")
  stamp <- function(t) format(t0 + t, "%Y-%m-%dT%H:%M:%SZ", tz = "UTC")
  archives <- list()
  runs <- list()
  for (a in 1:2) {
    dir <- file.path(root, c("x", "y")[a])
    dir.create(file.path(dir, "results"), recursive = TRUE)
    ids <- sprintf("1x4-default-r%03d", 1:6)
    for (r in 1:6) {
      start <- (r - 1) * 18 + if (a == 1) 0 else 4
      end <- start + if (a == 1) 3 else 13
      jsonlite::write_json(list(start_time = stamp(start), end_time = stamp(end)),
                           file.path(dir, "results", paste0(ids[r], ".prov.json")), auto_unbox = TRUE)
    }
    archives[[a]] <- list(dir = dir, runs = data.table(run_id = ids))
    runs[[a]] <- data.table(archive = a, run_id = ids, library = c("x", "y")[a], param_set = "default",
                            deployment = "1x4", nprocs = 4L)
  }
  costs <- launch_costs(archives, list(runs = rbindlist(runs)))
  setkey(costs, library)
  expect_equal(costs$kernel, c(3, 13))
  expect_equal(costs$launch, c(1, 1))
})
