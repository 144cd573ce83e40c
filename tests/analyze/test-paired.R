# The paired design (SPEC 7.6, analyze/assess/paired_test.R) on synthetic
# archives with interleaved rounds: a machine that changes speed 3x between
# rounds (phase_sd) hides a planted slowdown from the study's comparison of
# whole launches, and not from the paired test of the rounds.

# The planted archive, with rounds and speed phases: 8 runs, 5 rounds of 4
# repetitions, each round of each run at its own speed (lognormal, sd 0.5:
# 3x between the fastest and the slowest of a run's rounds is common).
phased_archive <- function(planted = planted_small, phase_sd = 0.5, seed = 7L, ...) {
  planted_archive(planted = planted, seed = seed, blocks = 5L, phase_sd = phase_sd, work_column = TRUE, ...)
}

test_that("paired by default where the runs have rounds: the planted slowdowns, and nothing else", {
  archive <- phased_archive()
  result <- analyze_archives(archive, root = nbh_root)
  tt <- test_table(result)
  expect_setequal(unique(tt$method), "paired")
  expect_true(fsetequal(violated_cells(result), planted_expected))
  expect_equal(unique(tt$pairs), 8L * 5L)
  expect_equal(unique(tt$runs_a), 8L)
  expect_equal(tt[violated == TRUE & tag == "GL4", ratio], 1.25, tolerance = 0.03)
  expect_equal(tt[violated == TRUE & tag == "GL12", ratio], 1.3, tolerance = 0.03)
  # Equal sides hold: the interval of every unplanted test lies below 1.05.
  fine <- tt[!violated & abs(log(ratio)) < 0.02]
  expect_gt(nrow(fine), 0.8 * nrow(tt))
})

test_that("the study's unpaired test of whole launches cannot see through the speed phases", {
  archive <- phased_archive()
  study <- test_table(analyze_archives(archive, root = nbh_root, method = "study"))
  paired <- test_table(analyze_archives(archive, root = nbh_root))
  expect_setequal(unique(study$method), "study")
  expect_lt(sum(study$decision != "open"), sum(paired$decision != "open") / 2)
  width <- function(t) median(t$ratio_ci_high / t$ratio_ci_low)
  # measured: 0 of 320 decided with intervals 1.9x wide (hi/lo), against all 320 within 1.016x
  expect_gt(log(width(study)), 10 * log(width(paired)))
})

test_that("a paired test is the two-level test: each run's mean log ratio, a t test over the runs", {
  cells <- make_cells(op = c("a", "b"), msize = 1L)
  # three runs of three rounds: a is about 1.1x b; the speed of each round
  # differs 3x, and the runs differ from each other (launch effects)
  speed <- c(1, 3, 1.5, 0.7, 2, 1, 1.2, 0.9, 2.5)
  a <- 1e-5 * speed * c(1.10, 1.12, 0.95, 1.08, 1.11, 1.09, 1.15, 1.13, 1.16)
  b <- 1e-5 * speed
  values <- data.table(cell = rep(1:2, each = 9), run = rep(1:9, 2), median = c(a, b))
  setkeyv(values, c("cell", "run"))
  run_of_unit <- rep(1:3, each = 3)
  t <- assess_guideline(guideline(c(op = "a"), c(op = "b")), cells, values, c("op", "msize"), method = "paired",
                        run_of_unit = run_of_unit)
  e <- tapply(log(a / b), run_of_unit, mean)
  reference <- t.test(e, alternative = "greater")
  expect_equal(t$method, "paired")
  expect_equal(t$pairs, 9L)
  expect_equal(t$runs_a, 3L)
  expect_equal(t$df, 2L)
  expect_equal(t$p_value, reference$p.value)
  expect_equal(t$ratio, exp(mean(e)))
  expect_equal(c(t$ratio_ci_low, t$ratio_ci_high), exp(as.numeric(t.test(e)$conf.int)))
  # the variance components: one-way ANOVA of the log ratios by run
  d <- log(a / b)
  fit <- anova(lm(d ~ factor(run_of_unit)))
  msw <- fit[["Mean Sq"]][2]
  msb <- fit[["Mean Sq"]][1]
  expect_equal(t$var_round, msw)
  expect_equal(t$var_launch, max(0, (msb - msw) / 3))
  expect_equal(t$launch_share, t$var_launch / (t$var_launch + t$var_round))
})

test_that("method = rounds is the signed-rank test of every round counted as a replicate", {
  cells <- make_cells(op = c("a", "b"), msize = 1L)
  # two runs of three rounds: a is 1.1x b in five rounds, 0.95x in one; the
  # speed of each round differs 3x
  speed <- c(1, 3, 1.5, 0.7, 2, 1)
  a <- 1e-5 * speed * c(1.10, 1.12, 0.95, 1.08, 1.11, 1.09)
  b <- 1e-5 * speed
  values <- data.table(cell = rep(1:2, each = 6), run = rep(1:6, 2), median = c(a, b))
  setkeyv(values, c("cell", "run"))
  t <- assess_guideline(guideline(c(op = "a"), c(op = "b")), cells, values, c("op", "msize"), method = "rounds",
                        run_of_unit = c(1L, 1L, 1L, 2L, 2L, 2L))
  d <- log(a / b)
  expect_equal(t$pairs, 6L)
  expect_equal(t$runs_a, 2L)
  expect_equal(t$p_value, wilcox.test(d, alternative = "greater", exact = TRUE)$p.value)
  expect_equal(t$ratio, exp(median(outer(d, d, "+")[upper.tri(diag(6), diag = TRUE)] / 2)))
  expect_equal(t$method, "rounds")
})

test_that("one run gives no degrees of freedom: never decided, whatever its rounds say", {
  cells <- make_cells(op = c("a", "b"), msize = 1L)
  rounds <- 12L
  a <- 1e-5 * 1.04 * exp(rnorm(rounds, 0, 0.001))   # 4 % slower in this launch, every round
  b <- rep(1e-5, rounds)
  values <- data.table(cell = rep(1:2, each = rounds), run = rep(seq_len(rounds), 2), median = c(a, b))
  setkeyv(values, c("cell", "run"))
  t <- assess_guideline(guideline(c(op = "a"), c(op = "b")), cells, values, c("op", "msize"), method = "paired",
                        run_of_unit = rep(1L, rounds))
  expect_equal(t$df, 0L)
  expect_equal(t$p_value, 1)
  expect_true(is.na(t$ratio_ci_low) && is.na(t$ratio_ci_high))
  expect_false(t$violated)
  d <- decide_tests(copy(t)[, `:=`(guideline = 1L, p_look = 0.001, ci_level_look = 0.95)],
                    list(hold_ratio = 1.05, guidelines = list(list(v_thres = 1.03)), v_thres = 1.03))
  expect_equal(d$decision, "open")
  # the pooled test of the rounds decides it from that one launch
  pooled <- assess_guideline(guideline(c(op = "a"), c(op = "b")), cells, values, c("op", "msize"),
                             method = "rounds", run_of_unit = rep(1L, rounds))
  expect_true(pooled$violated)
})

test_that("a wild run leaves a test open, it does not decide it", {
  cells <- make_cells(op = c("a", "b"), msize = 1L)
  runs <- 10L
  rounds <- 5L
  set.seed(4)
  run_of_unit <- rep(seq_len(runs), each = rounds)
  d <- rnorm(runs * rounds, 0, 0.02)
  d[run_of_unit == 3L] <- d[run_of_unit == 3L] + log(5)   # one launch 5x slower on side a
  values <- data.table(cell = rep(1:2, each = runs * rounds), run = rep(seq_len(runs * rounds), 2),
                       median = c(1e-5 * exp(d), rep(1e-5, runs * rounds)))
  setkeyv(values, c("cell", "run"))
  t <- assess_guideline(guideline(c(op = "a"), c(op = "b")), cells, values, c("op", "msize"), method = "paired",
                        run_of_unit = run_of_unit)
  expect_false(t$violated)
  expect_gt(t$p_value, 0.05)
  expect_gt(t$ratio_ci_high, 1.05)   # open at the hold ratio 1.05: it cannot hold either
  expect_gt(t$launch_share, 0.9)
})

test_that("an archive without rounds is tested unpaired by default, paired by launches when asked", {
  archive <- planted_archive()
  default <- test_table(analyze_archives(archive, root = nbh_root))
  expect_setequal(unique(default$method), "unpaired")
  launches <- test_table(analyze_archives(archive, root = nbh_root, method = "paired"))
  expect_setequal(unique(launches$method), "paired")
  expect_equal(unique(launches$pairs), 8L)
  expect_equal(unique(launches$df), 7L)
  # one unit per run: the launch variance cannot be told from the rounds'
  expect_true(all(is.na(launches$launch_share)))
  summary <- summary_power(summary_table(analyze_archives(archive, root = nbh_root, method = "paired")),
                           launches, 0.001)
  expect_setequal(summary$power, "ok")
  expect_true(all(launches[violated == TRUE, ratio] > 1.2))
})

test_that("an assessment set may ask for the study's test; --method overrides every set", {
  archive <- phased_archive()
  file <- tempfile(fileext = ".conf")
  writeLines(c("[collectives]", "parameter = op", "varied = msize", "method = study",
               "GL4: neighbor_allgather <= neighbor_alltoall", "",
               "[orders]", "parameter = order", "varied = msize", "GL11: FMAJ <= RAND"), file)
  tt <- test_table(analyze_archives(archive, file, root = nbh_root))
  expect_equal(unique(tt[tag == "GL4", method]), "study")
  expect_equal(unique(tt[tag == "GL11", method]), "paired")
  all_study <- test_table(analyze_archives(archive, file, root = nbh_root, method = "unpaired"))
  expect_setequal(unique(all_study$method), "unpaired")
  writeLines(c("[x]", "parameter = op", "varied = msize", "method = twice", "GL4: neighbor_allgather <= neighbor_alltoall"),
             file)
  expect_error(analyze_archives(archive, file, root = nbh_root), "method: unknown 'twice'", class = "nbh_input_error")
})

test_that("A/A twins: tested against their originals (AA), left out of every other guideline", {
  experiments <- synthetic_experiments("small", nrep = 20L)
  originals <- experiments[msize == 1024L & ndim == 2L & nfin == 0L & reorder == 0L]
  twins <- copy(originals)[, `:=`(id = max(experiments$id) + .I, twin = 1L, twin_of = id)]
  twins[, twin_of := originals$id]
  experiments[, `:=`(twin = 0L, twin_of = NA_integer_)]
  dir <- file.path(tempfile("archive-"), "synthetic-openmpi")
  write_synthetic_archive(dir, rbind(experiments, twins), deployments = "1x4", nrun = 6L, inputs = FALSE,
                          blocks = 5L, phase_sd = 0.5, work_column = TRUE, seed = 11L)
  result <- analyze_archives(dir, root = nbh_root)
  tt <- test_table(result)
  aa <- tt[tag == "AA"]
  expect_equal(nrow(aa), nrow(twins))
  expect_setequal(aa$a_params, "twin=1")
  expect_equal(sum(aa$violated), 0L)
  plain <- file.path(tempfile("archive-"), "synthetic-openmpi")
  write_synthetic_archive(plain, experiments[, !c("twin", "twin_of")], deployments = "1x4", nrun = 6L,
                          inputs = FALSE, blocks = 5L, work_column = TRUE, seed = 11L)
  expect_equal(nrow(tt[tag != "AA"]), nrow(test_table(analyze_archives(plain, root = nbh_root))))
  expect_setequal(tt[tag != "AA", twin], 0L)
  s <- aa_summary(tt, 0.001)
  expect_equal(s$tests, nrow(twins))
  expect_equal(s$nominal, 0.002)
})

test_that("method = rounds with more units than the exact test counts: the test pairs the runs (each run's median of its rounds)", {
  cells <- make_cells(op = c("a", "b"), msize = 1L)
  runs <- 120L
  rounds <- 10L   # 1200 units > MAX_PAIRED_UNITS
  set.seed(3)
  speed <- exp(rnorm(runs * rounds, 0, 0.5))
  a <- 1e-5 * speed * 1.05 * exp(rnorm(runs * rounds, 0, 0.01))
  b <- 1e-5 * speed
  values <- data.table(cell = rep(1:2, each = runs * rounds), run = rep(seq_len(runs * rounds), 2), median = c(a, b))
  setkeyv(values, c("cell", "run"))
  run_of_unit <- rep(seq_len(runs), each = rounds)
  t <- assess_guideline(guideline(c(op = "a"), c(op = "b")), cells, values, c("op", "msize"), method = "rounds",
                        run_of_unit = run_of_unit)
  expect_equal(t$pairs, runs)
  expect_equal(t$runs_a, runs)
  per_run <- tapply(log(a / b), run_of_unit, median)
  expect_equal(t$p_value, signed_rank_test(list(test = rep(1L, runs), value = unname(per_run)))$p_greater)
  expect_equal(t$ratio, 1.05, tolerance = 0.01)
})

test_that("the pairs in C (paired_differences.c) are the joins' pairs: shared, missing and repeated units", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  joined <- function(tests, values) {   # paired_differences's joins, forced
    setkeyv(values, "cell")
    paired_differences(tests, values)
  }
  set.seed(5)
  for (trial in 1:20) {
    cells <- 30L
    values <- rbindlist(lapply(seq_len(cells), function(c) {
      units <- sort(sample(60L, sample(0:40, 1)))
      data.table(cell = rep(c, length(units)), run = units, median = rlnorm(length(units), -10, 0.2))
    }))
    setkeyv(values, c("cell", "run"))
    tests <- data.table(test = seq_len(50), a_cell = sample(cells, 50, TRUE), b_cell = sample(cells, 50, TRUE))
    expect_identical(paired_differences(tests, values), joined(tests, copy(values)))
  }
  values <- data.table(cell = c(1L, 1L, 2L), run = c(3L, 3L, 3L), median = c(1, 2, 4))   # a unit twice: joins
  setkeyv(values, c("cell", "run"))
  expect_equal(nrow(paired_differences(data.table(test = 1L, a_cell = 1L, b_cell = 2L), values)), 2L)
})

test_that("the two-level test as the pairs are merged in C is launch_test of paired_differences's pairs", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  set.seed(8)
  for (trial in 1:10) {
    cells <- 20L
    run_of_unit <- sort(sample(12L, 60L, TRUE))   # 60 units of up to 12 runs
    values <- rbindlist(lapply(seq_len(cells), function(c) {
      units <- sort(sample(60L, sample(0:40, 1)))
      data.table(cell = rep(c, length(units)), run = units, median = rlnorm(length(units), -10, 0.2))
    }))
    setkeyv(values, c("cell", "run"))
    tests <- data.table(test = seq_len(40), a_cell = sample(cells, 40, TRUE), b_cell = sample(cells, 40, TRUE))
    merged <- paired_launch_test(tests, values, run_of_unit, 0.95)
    expect_false(is.null(merged))
    both <- paired_differences(tests, values)
    expect_identical(merged, launch_test(list(test = both$test, run = run_of_unit[both$unit], value = both$d),
                                         nrow(tests), 0.95))
  }
  # What the merge leaves to the pairs' way: runs out of order, a unit twice, tests not 1..n.
  expect_null(paired_launch_test(tests, values, rev(run_of_unit), 0.95))
  doubled <- setkeyv(rbind(values, values[1]), c("cell", "run"))
  expect_null(paired_launch_test(tests, doubled, run_of_unit, 0.95))
  expect_null(paired_launch_test(copy(tests)[, test := test + 1L], values, run_of_unit, 0.95))
  pairs <- paired_differences(tests, doubled)[, .N, keyby = test][tests, on = "test", fcoalesce(N, 0L)]
  expect_identical(paired_tests(tests, doubled, run_of_unit)$pairs, pairs)   # the pairs' way: the unit twice
})

test_that("round_unit_table: the units and the times by (cell, unit), as unit_index and as_unit_runs give them", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  reference <- local({
    call_native <- function(...) NULL   # the R code: unit_index and as_unit_runs
    environment(round_unit_table) <- environment()
    round_unit_table
  })
  same <- function(cell, run, round, median) {
    got <- round_unit_table(cell, run, round, median)
    want <- reference(cell, run, round, median)
    expect_identical(got$index$run_of_unit, want$index$run_of_unit)
    expect_identical(as.data.frame(got$index$index), as.data.frame(want$index$index))
    expect_identical(as.data.frame(got$times), as.data.frame(want$times))
    expect_identical(key(got$times), c("cell", "run"))
  }
  set.seed(7)
  # As reduce_runs gives them: run after run, each cell's rounds in order.
  runs <- rep(c(1L, 2L, 4L, 7L), each = 30L)
  cell <- rep(rep(1:10, each = 3L), 4L)
  round <- rep(1:3, 40L)
  median <- runif(120)
  same(cell, runs, round, median)
  # Runs out of order, rounds out of order, a round 0, NA cells and medians, a (cell, run, round) twice.
  shuffled <- sample(120)
  cell[c(5, 17)] <- NA
  median[c(9, 60)] <- NA
  round[33] <- 0L
  same(c(cell[shuffled], 4L), c(runs[shuffled], 2L), c(round[shuffled], 2L), c(median[shuffled], 0.5))
  # Many cells out of unit order (each sorted on its own).
  many <- data.table(cell = rep(1:500, 12), run = rep(12:1, each = 500), round = 1L, median = runif(6000))
  same(many$cell, many$run, many$round, many$median)
  expect_identical(nrow(round_unit_table(integer(), integer(), integer(), numeric())$times), 0L)
  expect_error(round_unit_table(1L, 0L, 1L, 1), "runs from 1")
})

test_that("as_unit_runs: each row's unit as the join with the unit index gives it", {
  set.seed(6)
  units <- data.table(cell = rep(1:3, each = 12), run = rep(rep(c(2L, 5L, 9L), each = 4), 3), round = rep(0:3, 9),
                      median = runif(36))
  index <- unit_index(units[sample(.N, 20)])   # some (run, round) without a unit
  joined <- function(table) {
    out <- copy(table)[index$index, on = c("run", "round"), unit := i.unit]
    out[, run := unit][, c("unit", "round") := NULL]
    setkeyv(out, c("cell", "run"))[]
  }
  expect_identical(as_unit_runs(units, index), joined(units))
  # sorted by (cell, run, round), as round_units gives them: sorted by (cell, unit) without a sort
  sorted <- setkeyv(copy(units[run %in% index$index$run]), c("cell", "run", "round"))
  sorted <- sorted[index$index, on = c("run", "round"), nomatch = NULL][, unit := NULL]
  setkeyv(sorted, c("cell", "run", "round"))
  expect_identical(as_unit_runs(sorted, index), joined(sorted))
  doubled <- copy(units)[, round := as.double(round)]   # not integers: the join itself
  expect_identical(as_unit_runs(doubled, index), joined(doubled))
})

test_that("the round units are the same whether the workers leave the round medians in the value store or send them back", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  dir <- phased_archive()
  # one run not clean: read_results reads it (its rounds come back as a list whatever the store)
  spoil_time(sort(list.files(file.path(dir, "results"), pattern = "\\.results\\.csv$", full.names = TRUE))[3])
  inputs <- reduce_inputs(dir)
  archives <- inputs$archives
  frame <- inputs$frame
  without_store <- local({
    call_native <- function(routine, ...) {
      if (identical(routine, "nbh_store_new")) NULL else get("call_native", globalenv())(routine, ...)
    }
    environment(reduce_runs) <- environment()
    reduce_runs
  })
  w1 <- warnings_of(stored <- reduce_runs(archives, frame, cores = 2L))
  w2 <- warnings_of(listed <- without_store(archives, frame, cores = 2L))
  expect_identical(w1, w2)
  expect_match(w1[1], "malformed row")
  expect_true(inherits(attr(stored, "values"), "externalptr"))
  expect_true(is.double(attr(listed, "values")))
  expect_identical(attr(stored, "rounds"), attr(listed, "rounds"))
  expect_equal(nrow(attr(stored, "rounds")$times), 8L * 5L * nrow(frame$cells) - 5L)   # less the left-out experiment
})
