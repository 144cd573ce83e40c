# The plots' rendering, before and now, side by side (bench-plots): analyses
# the archives once (not timed), plans the analysis's plots as `analyze`
# does (analysis_plot_sets: --max-plots N), then draws them TRIALS times
# each way, interleaved: before, each kind in its own pass of workers,
# every plot through ggsave twice (PNG and PDF, each building the plot
# anew); now, plots/render_plot_sets (one pass, built once per device,
# PNG; and with PDF). Prints "key value" lines: plots, and per way the
# median wall seconds and CPU seconds (this process and its workers).
#   Rscript bench/analyze/plot_speed.R OUT MAX_PLOTS TRIALS ARCHIVE...
args <- commandArgs(TRUE)
out <- args[1]
max_plots <- if (args[2] == "all") NULL else as.integer(args[2])
trials <- as.integer(args[3])
archives <- args[-(1:3)]
compiler::enableJIT(0L)
source(file.path(Sys.getenv("NBH_ROOT"), "analyze", "load.R"))
suppressPackageStartupMessages(library(ggplot2))
result <- suppressWarnings(analyze_archives(archives))
result$shown_params <- report_params(result)
tt <- test_table(result)
summary <- summary_decisions(summary_power(summary_table(result, tt), tt, result$p_thres, result$adjust %||% "none"),
                             tt)
closest <- closest_calls(tt, result$p_thres, result$v_thres)
planned <- analysis_plot_sets(result, tt, summary, closest, list(max_plots = max_plots))
sets <- planned$sets

# The renderer before issue 37, as it was.
render_plots_before <- function(pd, draw, dir, width = 8, height = 5) {
  if (!nrow(pd$plots)) return(pd$plots)
  dir.create(file.path(dir, "plots"), recursive = TRUE, showWarnings = FALSE)
  unlist(map_in_workers(seq_len(nrow(pd$plots)), function(i) {
    this <- pd$plots[i]
    p <- fit_labels(draw(this, pd$data[plot == this$plot]), width)
    for (ext in c(".png", ".pdf")) {
      drawn <- file.path(tempdir(), paste0(this$file, ext))
      suppressMessages(
        if (ext == ".png") ggsave(drawn, p, width = width, height = height, dpi = 110, type = "cairo")
        else ggsave(drawn, p, width = width, height = height, device = cairo_pdf))
      check_plot_file(drawn)
      copy_output_file(drawn, file.path(dir, "plots", paste0(this$file, ext)))
      unlink(drawn)
    }
    TRUE
  }))
}

ways <- list(
  before = function(dir) for (s in sets) render_plots_before(s$pd, s$draw, dir, s$width, s$height),
  now = function(dir) render_plot_sets(sets, dir, plot_formats(), progress = function(files) function(i, s) NULL),
  now_pdf = function(dir) render_plot_sets(sets, dir, plot_formats(pdf = TRUE),
                                           progress = function(files) function(i, s) NULL))
cpu <- function() {
  p <- proc.time()
  sum(p[c("user.self", "sys.self", "user.child", "sys.child")], na.rm = TRUE)
}
wall <- setNames(rep(list(numeric()), length(ways)), names(ways))
cpus <- wall
for (trial in seq_len(trials)) {
  for (way in names(ways)) {
    dir <- file.path(out, sprintf("%s-%d", way, trial))
    unlink(dir, recursive = TRUE)
    c0 <- cpu()
    w0 <- proc.time()[["elapsed"]]
    ways[[way]](dir)
    wall[[way]] <- c(wall[[way]], proc.time()[["elapsed"]] - w0)
    cpus[[way]] <- c(cpus[[way]], cpu() - c0)
    unlink(dir, recursive = TRUE)
  }
}
cat(sprintf("plots %d\n", sum(vapply(sets, function(s) nrow(s$pd$plots), 0L))))
cat(sprintf("kinds %s\n", paste(sprintf("%s:%d", names(sets), vapply(sets, function(s) nrow(s$pd$plots), 0L)),
                                collapse = ",")))
for (way in names(ways)) {
  cat(sprintf("%s_wall %.3f\n%s_cpu %.3f\n", way, median(wall[[way]]), way, median(cpus[[way]])))
}
