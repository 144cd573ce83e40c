# Entry point of `nbhbench plan` (libexec/nbhbench-plan checks the
# options): Rscript analyze/plan_main.R ANALYSIS TARGET LEVEL. Prints, per
# guideline and context of the analysis's plan.csv (plan_repetitions.R),
# the interval now and what more launches or more rounds would give to
# reach +/- (TARGET - 1). Exit status: 0; 2 bad input (one line).
local({
  root <- Sys.getenv("NBH_ROOT", ".")
  source(file.path(root, "analyze", "load.R"))
  args <- commandArgs(TRUE)
  status <- tryCatch({
    dir <- args[1]
    target <- suppressWarnings(as.numeric(args[2]))
    level <- suppressWarnings(as.numeric(args[3]))
    file <- file.path(dir, "plan.csv")
    if (!file.exists(file.path(dir, "tests.csv"))) input_error(dir, ": not an analysis (no tests.csv); run nbhbench analyze first")
    if (!file.exists(file)) {
      input_error(file, ": no plan: the analysis has no two-level test with two runs or more and rounds ",
                  "(method paired; an archive without rounds, or one run, has no variance components)")
    }
    plan <- fread(file)
    if (!is.na(target)) plan <- replan(plan, target, level)
    shown <- plan[, .(guideline = fifelse(is.na(tag) | !nzchar(tag), guideline, paste(tag, guideline)),
                      context = paste(library, deployment), `runs x rounds` = sprintf("%d x %d", runs, rounds),
                      `launch share` = ifelse(is.na(launch_share), "-", sprintf("%.0f%%", 100 * launch_share)),
                      `now` = sprintf("+/-%.2g%%", 100 * half_width), advice)]
    cat(sprintf("target: +/-%.3g %% (the interval's half-width; %s)\n", 100 * plan$target[1],
                if (is.na(target)) "the analysis's hold ratio" else "--target"))
    print(shown, row.names = FALSE, class = FALSE, nrows = Inf)
    0L
  }, nbh_input_error = function(e) {
    message("nbhbench: ", conditionMessage(e))
    2L
  }, error = function(e) {
    message("nbhbench: plan failed: ", gsub("\n", " ", conditionMessage(e)))
    1L
  })
  quit(save = "no", status = status)
})
