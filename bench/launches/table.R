# Prints the simulation grid (grid.R's CSV) as docs/analyze.md's tables:
# Rscript bench/launches/table.R FILE
suppressPackageStartupMessages(library(data.table))
x <- fread(commandArgs(TRUE)[1])
pct <- function(v) sprintf("%.1f", 100 * v)
at_one <- x[ratio == 1, .(`launch sd` = sd_launch, runs, rounds,
                          `coverage: two-level` = pct(paired_coverage), `rounds` = pct(rounds_coverage),
                          `study` = pct(study_coverage),
                          `false violations: two-level` = pct(paired_violated), `rounds ` = pct(rounds_violated),
                          `study ` = pct(study_violated),
                          `contradictions: two-level` = pct(paired_contradictions),
                          `rounds  ` = pct(rounds_contradictions))]
cat("True ratio 1 (%; coverage of the 95 % interval, violated, violated in one campaign and holding in its twin):\n")
print(at_one, row.names = FALSE)
above <- x[ratio == 1.06, .(`launch sd` = sd_launch, runs, rounds, `false holds: two-level` = pct(paired_holds),
                            `rounds` = pct(rounds_holds), `study` = pct(study_holds))]
cat("\nTrue ratio 1.06, hold ratio 1.05 (%; holds, 2.5 % nominal at most):\n")
print(above, row.names = FALSE)
power <- x[ratio == 1.10, .(`launch sd` = sd_launch, runs, rounds, `violated: two-level` = pct(paired_violated),
                            `rounds` = pct(rounds_violated), `study` = pct(study_violated))]
cat("\nTrue ratio 1.10 (%; violated at p <= 0.001, ratio >= 1.03: power):\n")
print(power, row.names = FALSE)
