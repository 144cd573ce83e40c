# The A/A self-check (SPEC 7.6; campaign.conf aa, gen/twins.py): a twin is
# an experiment with its original's parameters under its own id, measured
# interleaved like any other, with its own random draws (seeds, buffers).
# Where an archive has twins, the analysis tests each against its original
# with guideline AA (twin ~ original, in both directions, by the analysis's
# method; a family of its own for --adjust), and every other guideline
# compares originals only. Twin and original differ in nothing the
# experiment is about, so every AA violation is a false one, and the twins'
# p-values should be uniform: whether they are says whether the whole
# chain -- machine, kernel, statistics -- can be trusted on this machine
# (aa_summary, aa_status).

AA_GUIDELINE <- list(set = "A/A self-check", parameter = "twin", tag = "AA", relation = "~",
                     a = c(twin = "1"), b = c(twin = "0"), a_text = "twin=1", b_text = "twin=0",
                     text = "twin ~ original", where = "A/A self-check (campaign.conf aa)", statistic = "median")

# GUIDELINES (parse_assessment) as the cells ask: with twins among them,
# every guideline that does not name `twin` compares originals (twin = 0
# on both sides), and AA is added (varied: the first of msize, matrix_n,
# halo_n, unit that varies among the twins, else msize). Without twins,
# as they are.
with_twin_check <- function(guidelines, cells, params) {
  if (!"twin" %in% names(cells) || !any(cells$twin %in% 1L)) return(guidelines)
  original <- c(twin = "0")
  guidelines <- lapply(guidelines, function(g) {
    if ("twin" %in% c(names(g$a), names(g$b))) return(g)
    g$a <- c(g$a, original)
    g$b <- c(g$b, original)
    g
  })
  twins <- cells[twin %in% 1L]
  varied <- Find(function(p) p %in% names(twins) && uniqueN(twins[[p]]) > 1L,
                 c("msize", "matrix_n", "halo_n", "unit")) %||% "msize"
  c(guidelines, list(modifyList(AA_GUIDELINE, list(varied = varied))))
}

# The A/A check's result, per context: data.table(library, param_set,
# deployment, nprocs, tests, violated, rate, nominal, holds, open, small,
# small_rate, small_nominal, small_p, tiny, tiny_nominal). Twin and
# original differ in nothing but their own draws (seeds, buffers: a twin
# draws its own, so whatever one launch fixes differs between them as it
# would between two launches), so under a test that keeps its level the
# twins' two-sided p-values are uniform: `small` of them are <= 0.05
# (small_nominal 0.05; small_p: the one-sided binomial p of that many or
# more), `tiny` <= p_thres. `violated` counts false violations against
# `nominal`, at most 2 p_thres (both directions at p_thres; fewer still
# with the ratio threshold). A check whose tests are all open decided
# nothing (aa_status). NULL without AA tests.
aa_summary <- function(tt, p_thres) {
  aa <- tt[tag %in% "AA"]
  if (!nrow(aa)) return(NULL)
  reverse <- if ("p_reverse" %in% names(aa)) aa$p_reverse else aa$p_value
  aa[, p_two := pmin(1, 2 * pmin(p_value, fcoalesce(reverse, p_value)))]
  out <- aa[, .(tests = .N, violated = sum(violated), holds = sum(decision == "holds"),
                open = sum(decision == "open"), small = sum(p_two <= 0.05, na.rm = TRUE),
                tiny = sum(p_two <= p_thres, na.rm = TRUE)), keyby = RUN_PARAMETERS]
  out[, `:=`(rate = violated / tests, nominal = min(1, 2 * p_thres), small_rate = small / tests,
             small_nominal = 0.05, tiny_nominal = p_thres,
             small_p = pbinom(small - 1L, tests, 0.05, lower.tail = FALSE))]
  setcolorder(out, c(RUN_PARAMETERS, "tests", "violated", "rate", "nominal", "holds", "open", "small",
                     "small_rate", "small_nominal", "small_p", "tiny", "tiny_nominal"))
  out[]
}

# What the A/A check found over all its twin tests (S: aa_summary):
# "fails" (more twin p-values <= 0.05 than chance gives: binomial p <
# 0.05, or more false violations than the nominal rate allows), "decided
# nothing" (every twin test open: the check shows no difference, nor that
# there is none), else "passes".
aa_status <- function(s) {
  n <- sum(s$tests)
  small <- sum(s$small)
  violated <- sum(s$violated)
  excess <- pbinom(small - 1L, n, 0.05, lower.tail = FALSE) < 0.05 ||
    (violated > 0L && pbinom(violated - 1L, n, s$nominal[1], lower.tail = FALSE) < 0.05)
  if (excess) "fails" else if (sum(s$open) == n) "decided nothing" else "passes"
}

# The smallest share of twin p-values <= 0.05 that N twin tests can tell
# from the nominal 5 % (one-sided binomial test at 0.05).
aa_detectable_share <- function(n) {
  k <- 1L
  while (k <= n && pbinom(k - 1L, n, 0.05, lower.tail = FALSE) >= 0.05) k <- k + 1L
  if (k > n) NA_real_ else k / n
}
