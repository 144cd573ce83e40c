# The release regression of NEW against OLD as it would be without the
# pairing by launch, on the same run medians: every cell the exact
# one-sided rank-sum test of the two sides' run medians (method unpaired),
# as `analyze --baseline` tests releases whose launches were not
# interleaved (run from the project's root):
#   Rscript --vanilla docs/examples/releases/unpaired.R OUT.csv NEW OLD
# Writes OUT.csv with the columns of regressions.csv. It runs the
# analyzer's own regress_archives with the archives' launch pairs hidden
# (launch_pairs_of answering none), so that only the pairing differs from
# `analyze NEW --baseline OLD`.
suppressPackageStartupMessages(source(file.path(Sys.getenv("NBH_ROOT", "."), "analyze", "load.R")))
args <- commandArgs(TRUE)
if (length(args) != 3L) stop("usage: unpaired.R OUT.csv NEW OLD")
registry <- read_registry(Sys.getenv("NBH_ROOT", "."))
default <- function(name) analysis_default(registry, name)
result <- suppressWarnings(analyze_archives(args[2], NULL, default("p_thres"), default("v_thres"),
                                            ci_level = default("ci_level")))
launch_pairs_of <- function(runs) NULL
regression <- suppressWarnings(regress_archives(result, args[3]))
stopifnot(all(regression$table$method %in% c("unpaired", NA)))
fwrite(regression$table, args[1])
