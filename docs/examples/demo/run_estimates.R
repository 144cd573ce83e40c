# Each run's own estimate in every two-level test of the demo's analysis,
# from the analyzer's own round units (run from the project's root):
#   Rscript --vanilla docs/examples/demo/run_estimates.R OUT.csv ARCHIVE...
# One row per test and run: the test (its tag; the library; op, topology,
# order and msize of side a and of side b; twin of side a), the run, its
# rounds, the mean of its rounds' log ratios d(r, k) = log(m_a / m_b) (the
# run's estimate e(r) in the two-level test, analyze/assess/launch_test.R),
# their median, smallest and largest, and the test's ratio: exp of the
# mean of its runs' means (of a `~` test: of the slower side, exp(|mean|)).
suppressPackageStartupMessages(source(file.path(Sys.getenv("NBH_ROOT", "."), "analyze", "load.R")))
args <- commandArgs(TRUE)
registry <- read_registry(Sys.getenv("NBH_ROOT", "."))
default <- function(name) analysis_default(registry, name)
result <- suppressWarnings(analyze_archives(args[-1], NULL, default("p_thres"), default("v_thres"),
                                            ci_level = default("ci_level")))
tests <- result$tests[method == "paired", .(test = .I, guideline, a_cell, b_cell, ratio)]
cells <- result$frame$cells
paired <- result$state$paired
both <- paired_differences(tests[, .(test, a_cell, b_cell)], paired$times)
both[, run := paired$index$run_of_unit[unit]]
runs <- both[, .(rounds = .N, mean_d = mean(d), median_d = median(d), min_d = min(d), max_d = max(d)),
             keyby = .(test, run)]
side <- function(which, suffix) {
  out <- cells[match(which, cells$cell), .(op, topology, order, msize)]
  setnames(out, paste0(names(out), suffix))
}
about <- cbind(tests[, .(test, tag = vapply(result$guidelines[guideline], function(g) g$tag %||% "", ""),
                         library = cells$library[match(a_cell, cells$cell)],
                         twin_a = cells$twin[match(a_cell, cells$cell)], ratio)],
               side(tests$a_cell, "_a"), side(tests$b_cell, "_b"))
fwrite(about[runs, on = "test"], args[1])
