# Adjusted p-values for many tests at once (SPEC 7.4, "Many tests"): with
# thousands of rank-sum tests at p <= 0.001, some violations are chance.
#   none  the p-values as they are (the study's choice; the default)
#   holm  Holm's step-down adjustment: controls the family-wise error rate,
#         the chance of even one false violation, at the p threshold;
#   bh    Benjamini-Hochberg: controls the false discovery rate, the
#         expected share of false violations among those reported.
# Holm: sort p ascending, p_(i) * (m - i + 1), running maximum, capped at 1.
# BH:   sort p descending, p_(i) * m / i, running minimum, capped at 1.
# The same values as stats::p.adjust(p, "holm" / "BH"), which computes them;
# NA p-values (a test that could not be made) stay NA and do not count in m.
#
# p: numeric vector; method: "none", "holm" or "bh". Returns a vector of
# the same length. Pure; issue 11's regression tests reuse it.

ADJUST_METHODS <- c(none = "none", holm = "holm", bh = "BH")

adjust_p <- function(p, method = "none") {
  if (!is.character(method) || length(method) != 1L || !method %in% names(ADJUST_METHODS)) {
    input_error("--adjust: unknown method '", paste(method, collapse = " "), "' (",
                paste(names(ADJUST_METHODS), collapse = ", "), ")")
  }
  if (!is.numeric(p)) input_error("adjust_p: p-values must be numbers")
  if (method == "none") return(as.numeric(p))
  stats::p.adjust(p, ADJUST_METHODS[[method]])
}

# What a method's verdict controls, in words for the report.
adjust_meaning <- function(method, p_thres) {
  switch(method,
         none = sprintf("p-values not adjusted for the number of tests (--adjust none)"),
         holm = sprintf("p-values adjusted by Holm's method (--adjust holm): the chance of one or more false violations among all tests is at most %s", format(p_thres)),
         bh = sprintf("p-values adjusted by Benjamini-Hochberg (--adjust bh): the expected share of false violations among the reported ones is at most %s", format(p_thres)))
}
