# The A/A self-check (SPEC 7.6; campaign.conf aa, gen/twins.py): a twin is
# an experiment with its original's parameters under its own id, measured
# interleaved like any other. Where an archive has twins, the analysis
# tests each against its original with guideline AA (twin ~ original, in
# both directions, by the analysis's method), and every other guideline
# compares originals only. Twin and original differ in nothing the kernel
# measures, so every AA violation is a false one: how often they occur,
# against the nominal rate, says whether the whole chain -- machine,
# kernel, statistics -- can be trusted on this machine (aa_summary).

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
# deployment, nprocs, tests, violated, rate, nominal, holds, open) -- the
# false violations among the twin tests, their share, and the most that
# chance alone would give at the analysis's p threshold (each test is
# checked in both directions: 2 p_thres). NULL without AA tests.
aa_summary <- function(tt, p_thres) {
  aa <- tt[tag %in% "AA"]
  if (!nrow(aa)) return(NULL)
  out <- aa[, .(tests = .N, violated = sum(violated), holds = sum(decision == "holds"),
                open = sum(decision == "open")), keyby = RUN_PARAMETERS]
  out[, `:=`(rate = violated / tests, nominal = min(1, 2 * p_thres))]
  setcolorder(out, c(RUN_PARAMETERS, "tests", "violated", "rate", "nominal", "holds", "open"))
  out[]
}
