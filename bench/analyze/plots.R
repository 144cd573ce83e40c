# Plot rendering time of bench-analyze: analyses the archive (not timed),
# then draws up to N overview and N focus plots (PNG and PDF each) of the
# largest violations and prints the time per plot.
args <- commandArgs(TRUE)
archive <- args[1]
out <- args[2]
n <- as.integer(args[3])
compiler::enableJIT(0L)
source(file.path(Sys.getenv("NBH_ROOT"), "analyze", "load.R"))
suppressPackageStartupMessages(library(ggplot2))
result <- suppressWarnings(analyze_archives(archive))
tt <- test_table(result)
vt <- head(violation_table(tt)[order(-ratio)], n)
setorder(vt, guideline_no, group, test)
groups <- unique(vt[, .(guideline_no, group)])
unlink(out, recursive = TRUE)
start <- proc.time()[["elapsed"]]
od <- overview_data(tt, groups, result$params$name)
overview_data_s <- proc.time()[["elapsed"]] - start
start <- proc.time()[["elapsed"]]
fd <- focus_data(result, vt)
focus_data_s <- proc.time()[["elapsed"]] - start
start <- proc.time()[["elapsed"]]
o <- render_plots(od, overview_plot, out)
f <- render_plots(fd, focus_plot, out)
render_wall <- proc.time()[["elapsed"]] - start
cat(sprintf("violations %d\noverview_plots %d\noverview_per_plot %.3f\noverview_max %.3f\noverview_data %.3f\n",
            sum(tt$violated), nrow(o), mean(o$seconds), max(o$seconds), overview_data_s))
cat(sprintf("focus_plots %d\nfocus_per_plot %.3f\nfocus_max %.3f\nfocus_data %.3f\nrender_wall %.3f\n",
            nrow(f), mean(f$seconds), max(f$seconds), focus_data_s, render_wall))
