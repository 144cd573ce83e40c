# Decided or open (analyze/assess/decisions.R) on hand-made run medians,
# five runs a side (the unpaired tests of archives without rounds). The
# interval is Moses's (shift_interval.R): with 5 runs a side the 95 %
# interval is [D_(3), D_(23)] of the 25 log differences (P(W <= 2) =
# 0.0159, the last at or below 0.025), as wilcox.test(conf.int = TRUE):
#   narrow/narrow: [0.98515, 1.01508];  wide/wide: [0.75, 1.33333];
#   narrow/(narrow / 0.975): [0.96052, 0.98970], its reverse [1.01041, 1.04110].
# With 3 runs a side no interval reaches 95 % (the bootstrap that gave one
# was too narrow): such a test never holds.

params <- c("library", "deployment", "op", "msize")
narrow <- c(0.99, 0.995, 1, 1.005, 1.01)
wide <- c(0.8, 0.9, 1, 1.1, 1.2)

# Three pairs x/y at three sizes, each side's run medians given.
decided <- function(a, b, relation = "<=", p_thres = 0.05, v_thres = 1.03, hold_ratio = 1.03, ci_level = 0.95) {
  cells <- make_cells(library = "lib", deployment = "1x2", op = rep(c("x", "y"), each = length(a)),
                      msize = rep(seq_along(a), 2L))
  values <- c(a, b)
  names(values) <- as.character(seq_along(values))
  g <- guideline(list(op = "x"), list(op = "y"), relation = relation)
  state <- list(guidelines = list(g), cells = cells, pairs = list(match_sides(cells, g$a, g$b, params, "test")),
                params = params, p_thres = p_thres, v_thres = v_thres, adjust = "none", ci_level = ci_level,
                hold_ratio = hold_ratio)
  work <- data.table(cell = integer(), run = integer(), median = numeric(), n = integer())
  decide_tests(assess_tests(state, make_medians(values), work), state)
}

test_that("violated, holds and open, as worked out by hand", {
  t <- decided(list(1.2 * narrow, narrow, wide), list(narrow, narrow, wide))
  # 1: every run of a above b, p = 1/C(10,5) = 0.00397 <= 0.05, ratio 1.2: violated.
  expect_equal(t$p_value[1], 1 / choose(10, 5))
  expect_equal(t$ratio[1], 1.2)
  # 2: interval [0.98515, 1.01508], its upper bound below 1.03: holds.
  expect_equal(c(t$ratio_ci_low[2], t$ratio_ci_high[2]), c(0.9851485, 1.0150754), tolerance = 1e-6)
  # 3: interval [0.75, 1.33333]: a violation of 1.03 (and more) still fits: open.
  expect_equal(c(t$ratio_ci_low[3], t$ratio_ci_high[3]), c(0.75, 4 / 3), tolerance = 1e-6)
  expect_equal(t$decision, c("violated", "holds", "open"))
  # 3 runs a side: no 95 % interval at all, so even equal sides are open.
  three <- decided(list(narrow[2:4]), list(narrow[2:4]))
  expect_true(is.na(three$ratio_ci_high))
  expect_equal(three$decision, "open")
})

test_that("the hold ratio draws the line: the same interval holds below 1.03, not below 1.015", {
  expect_equal(decided(list(narrow), list(narrow), hold_ratio = 1.03)$decision, "holds")
  expect_equal(decided(list(narrow), list(narrow), hold_ratio = 1.015, v_thres = 1.015)$decision, "open")
  # A guideline's own, larger threshold is its hold ratio: 1.33333 < 1.35 holds.
  state_own <- decided(list(wide), list(wide), hold_ratio = 1.35, v_thres = 1.35)
  expect_equal(state_own$decision, "holds")
})

test_that("a ~ b holds only if neither side is slower by the hold ratio", {
  # a = 0.975 b: a/b's interval [0.96052, 0.98970] is below 1.03, so a <= b holds; but b/a's
  # [1.01041, 1.04110] reaches 1.03: a ~ b is open (and not violated: 1.0256 < 1.03).
  slower_b <- narrow / 0.975
  le <- decided(list(narrow), list(slower_b))
  expect_equal(le$decision, "holds")
  expect_equal(le$ratio_ci_high, 0.9896985, tolerance = 1e-6)
  alike <- decided(list(narrow), list(slower_b), relation = "~")
  expect_equal(alike$slower, "b")
  expect_equal(alike$ratio_ci_high, 1.041103, tolerance = 1e-6)
  expect_equal(alike$decision, "open")
  expect_equal(decided(list(narrow), list(narrow), relation = "~")$decision, "holds")
})

test_that("a test's runs: those both sides were measured in (paired), else its side with fewer", {
  kept <- data.table(cell = c(1L, 1L, 1L, 2L, 2L, 3L, 3L, 3L, 3L), run = c(1L, 2L, 3L, 2L, 3L, 1L, 4L, 5L, 6L))
  tests <- data.table(a_cell = c(1L, 1L, 1L, 2L), b_cell = c(2L, 3L, 3L, 4L), paired = c(TRUE, TRUE, FALSE, TRUE))
  # 1~2 share runs 2, 3; 1~3 share run 1 only; unpaired 1~3 has min(3, 4); cell 4 has no run.
  expect_equal(test_runs(tests, kept), c(2, 1, 3, 0))
})

test_that("each test's thresholds come from its own looks: runs / nrun_max, looks without new runs left out", {
  looks <- list(rule = "obrien-fleming", hold_rule = "pocock", nrun_max = 30L, p_thres = 0.001, hold_error = 0.025)
  runs <- rbind(c(10, 15, 20), c(10, 10, 20), c(10, 15, 15), c(30, 40, 40), c(0, 10, 20), c(30, 30, 30),
                c(20, 30, 30))
  th <- look_thresholds(runs, looks)
  expect_equal(th$p_look[1], spending_bounds(c(10, 15, 20) / 30, 0.001, "obrien-fleming")$p[3])
  expect_equal(th$p_look[2], spending_bounds(c(10, 20) / 30, 0.001, "obrien-fleming")$p[2])
  expect_equal(th$p_look[3], spending_bounds(c(10, 15) / 30, 0.001, "obrien-fleming")$p[2])
  expect_equal(th$p_look[6], 0.001, info = "the whole budget at the first look: the fixed design")
  expect_equal(th$ci_level_look[6], 0.95)
  # 30 runs spent the whole budget at the first look; the look at 40 runs has none left (not the same again)
  expect_equal(th$p_look[4], 0, info = "no error left after nrun_max")
  expect_equal(th$ci_level_look[4], 1 - 1e-9)
  expect_equal(th$p_look[7], spending_bounds(c(20, 30) / 30, 0.001, "obrien-fleming")$p[2])
  expect_equal(th$p_look[5], th$p_look[2], info = "a look without runs is no look")
  expect_equal(th$ci_level_look[1], 1 - 2 * spending_bounds(c(10, 15, 20) / 30, 0.025, "pocock")$p[3])
})

test_that("tests of one look are decided each with its own thresholds", {
  cells <- make_cells(library = "lib", deployment = "1x2", op = rep(c("x", "y"), each = 2L), msize = rep(1:2, 2L))
  g <- guideline(list(op = "x"), list(op = "y"))
  state <- list(guidelines = list(g), cells = cells, pairs = list(match_sides(cells, g$a, g$b, params, "test")),
                params = params, p_thres = 0.05, v_thres = 1.03, adjust = "none", ci_level = 0.95, hold_ratio = 1.03)
  # Size 1 is a at 1.2 b (p = 0.00397, violated at 0.05); size 2 holds at 95 % ([0.98515, 1.01508]).
  medians <- make_medians(list(`1` = 1.2 * narrow, `3` = narrow, `2` = narrow, `4` = narrow))
  work <- data.table(cell = integer(), run = integer(), median = numeric(), n = integer())
  uniform <- assess_at(state, medians, work)
  expect_equal(uniform$decision, c("violated", "holds"))
  expect_equal(c(uniform$p_look, uniform$ci_level_look), c(0.05, 0.05, 0.95, 0.95))
  # Size 1 at p 0.001 is not violated (its interval at 95 %, [1.18, 1.22], neither holds); size 2 has
  # no interval at 99.99 % with 5 runs a side: open.
  thresholds <- cbind(look_tests(state), p_look = c(0.001, 0.05), ci_level_look = c(0.95, 0.9999))
  own <- assess_at(state, medians, work, thresholds)
  expect_equal(own$decision, c("open", "open"))
  expect_equal(c(own$p_look, own$ci_level_look), c(0.001, 0.05, 0.95, 0.9999))
  expect_true(is.na(own$ratio_ci_high[2]) && uniform$ratio_ci_high[2] < 1.03)
  expect_equal(own$ratio_ci_high[1], uniform$ratio_ci_high[1])
  # A test assessed apart, on its own, is the same as assessed with all the others at its thresholds.
  whole <- assess_at(modifyList(state, list(ci_level = 0.9999)), medians, work)
  expect_equal(own[2L, !c("p_look", "ci_level_look")], whole[2L, !c("p_look", "ci_level_look")])
  # With --adjust the family stays whole: both tests' p adjusted together (holm: 2 x 1/252).
  state$adjust <- "holm"
  adjusted <- assess_at(state, medians, work, cbind(look_tests(state), p_look = c(0.1, 0.05), ci_level_look = 0.95))
  expect_equal(adjusted$p_adjusted[1], 2 / choose(10, 5))
  expect_equal(adjusted$decision[1], "violated")
})

test_that("a test's decided round is the look from which it had its final decision; flips are marked", {
  decisions <- rbind(c("holds", "violated"), c("violated", "violated"), c("holds", "open", "holds")[1:2],
                     c("open", "holds"), c("holds", "open"), c("violated", "holds"))
  out <- look_outcomes(decisions)
  expect_equal(out$decided, c(2L, 1L, NA, 2L, NA, 2L))
  expect_equal(out$flipped, c(TRUE, FALSE, FALSE, FALSE, FALSE, TRUE))
  three <- look_outcomes(rbind(c("holds", "open", "holds"), c("open", "violated", "violated")))
  expect_equal(three$decided, c(3L, 2L))
  expect_equal(look_decision_text(rbind(c("holds", "open", "holds"))), "holds open holds")
})

test_that("the hold ratio: --hold-ratio, else the campaign's, never below the ratio threshold", {
  archive <- function(h) list(info = list(settings = list(hold_ratio = h)))
  expect_equal(campaign_hold_ratio(list(archive(NULL)), NULL, 1.03), 1.03)
  expect_equal(campaign_hold_ratio(list(archive(1.2), archive(1.1)), NULL, 1.03), 1.2)
  expect_equal(campaign_hold_ratio(list(archive(1.2)), 1.05, 1.03), 1.05)
  expect_equal(campaign_hold_ratio(list(archive(1.02)), NULL, 1.05), 1.05)
  expect_error(campaign_hold_ratio(list(archive(NULL)), 1.01, 1.03), "--hold-ratio: 1.01 is below", class = "nbh_input_error")
})

test_that("replayed looks: a test is decided from the first round whose runs decide it", {
  # Cells 1, 2: x and y at size 1; 3, 4: at size 2. Round 1: runs 1-3, round 2: runs 4-6.
  cells <- make_cells(library = "lib", deployment = "1x2", op = rep(c("x", "y"), each = 2L), msize = rep(1:2, 2L))
  g <- guideline(list(op = "x"), list(op = "y"))
  state <- list(guidelines = list(g), cells = cells, pairs = list(match_sides(cells, g$a, g$b, params, "test")),
                params = params, p_thres = 0.05, v_thres = 1.03, adjust = "none", ci_level = 0.95, hold_ratio = 1.03)
  # Size 1 holds on the narrow runs of round 1; size 2 is open on (0.96, 0.98, 1, 1.02, 1.04) in round 1
  # ([0.9423, 1.0612]) and holds on those and five runs at 1 of round 2 ([0.9804, 1.02]).
  spread <- c(0.96, 0.98, 1, 1.02, 1.04, 1, 1, 1, 1, 1)
  medians <- make_medians(list(`1` = c(narrow, narrow), `3` = c(narrow, narrow), `2` = spread, `4` = spread))
  work <- data.table(cell = integer(), run = integer(), median = numeric(), n = integer())
  runs <- data.table(run_key = 1:10, round = rep(1:2, each = 5L))
  tests <- decide_tests(assess_tests(state, medians, work), state)
  expect_equal(tests$decision, c("holds", "holds"))
  r <- decision_rounds(tests, state, runs, medians, work)
  expect_equal(r$decided, c(1L, 2L))
  expect_equal(r$rounds, 2L)
  expect_equal(r$looks[, .(round, open, holds)], data.table(round = 1:2, open = c(1L, 0L), holds = c(1L, 2L)))
  expect_equal(r$flipped, c(FALSE, FALSE))
  # An archive without a round column is one round: every decided test in round 1.
  one <- decision_rounds(tests, state, data.table(run_key = 1:10, round = NA_integer_), medians, work)
  expect_equal(one$decided, c(1L, 1L))
})

test_that("the experiments an open test needs: both of its cells, none of a decided test's", {
  cells <- make_cells(exp = c(1L, 2L, 1L, 2L), context = rep(1:2, each = 2L), deployment = rep(c("1x2", "1x4"), each = 2L),
                      param_set = "default")
  result <- list(tests = data.table(a_cell = c(1L, 3L), b_cell = c(2L, 4L), decision = c("open", "holds")),
                 frame = list(cells = cells, ids = data.table(archive = 1L, id = c(10L, 20L), exp = 1:2)))
  expect_equal(needed_experiments(result), data.table(deployment = "1x2", param_set = "default", id = c(10L, 20L)))
})

test_that("summary.csv counts the tests that hold and are open per guideline and context", {
  s <- data.table(guideline_no = 1:2, library = "lib", param_set = "default", deployment = "1x2", nprocs = 2L,
                  n_vio_tests = c(1L, 0L), n_tests = c(4L, 0L), n_groups = 1L, power = "ok")
  tt <- data.table(guideline_no = 1L, library = "lib", param_set = "default", deployment = "1x2", nprocs = 2L,
                   decision = c("violated", "holds", "holds", "open"))
  out <- summary_decisions(s, tt)
  expect_equal(out[, .(n_holds_tests, n_open_tests)], data.table(n_holds_tests = c(2L, 0L), n_open_tests = c(1L, 0L)))
  expect_equal(names(out)[9:11], c("n_holds_tests", "n_open_tests", "power"))
})

test_that("a flip from holds to violated: decided in the round that violated it, and marked", {
  # Round 1 (runs 1-5): a at 1.02 b, its interval below the hold ratio 1.1: holds.
  # Round 2 (runs 6-10): a at 1.3 b; all 10 of a above b's (p = 1/C(20,10)), ratio 1.16 >= 1.1: violated.
  cells <- make_cells(library = "lib", deployment = "1x2", op = c("x", "y"), msize = 1L)
  g <- guideline(list(op = "x"), list(op = "y"))
  state <- list(guidelines = list(g), cells = cells, pairs = list(match_sides(cells, g$a, g$b, params, "test")),
                params = params, p_thres = 0.05, v_thres = 1.1, adjust = "none", ci_level = 0.95, hold_ratio = 1.1)
  medians <- make_medians(list(`1` = c(1.01, 1.015, 1.02, 1.025, 1.03, 1.3 * narrow), `2` = c(narrow, narrow - 0.001)))
  work <- data.table(cell = integer(), run = integer(), median = numeric(), n = integer())
  runs <- data.table(run_key = 1:10, round = rep(1:2, each = 5L))
  tests <- assess_at(state, medians, work)
  r <- decision_rounds(tests, state, runs, medians, work)
  expect_equal(r$decisions, matrix(c("holds", "violated"), 1L))
  expect_equal(r$decided, 2L)
  expect_true(r$flipped)
})
