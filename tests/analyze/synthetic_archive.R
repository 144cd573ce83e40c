# Synthetic archives in the format of docs/archive.md, with known slowdowns
# ("planted") and noise, for the analyzer's tests and its benchmark.
#
#   source("tests/analyze/synthetic_archive.R")
#   experiments <- synthetic_experiments("small")
#   write_synthetic_archive(dir, experiments, deployments = c("1x4", "2x4"),
#                           nrun = 8, nrep = 20, planted = list(
#                             list(where = list(op = "neighbor_allgather", msize = 1024), factor = 1.2)))
#
# As a command (the benchmark):
#   Rscript tests/analyze/synthetic_archive.R --campaign nbhcoll --out DIR
#           [--deployments 10x16,20x16,35x16] [--nrun 30] [--nrep 50] [--library openmpi]
#           [--seed 1] [--plant-fraction 0.01] [--param-sets default,tuned]
#           [--blocks B --phase-sd S]   (interleaved rounds; speed phases between them)
#
# Time model: every pair of cells that a shipped guideline compares has the
# same true time, so only planted cells differ. Noise: a per-run factor
# (lognormal, sd run_sd), a per-measurement factor (lognormal, sd rep_sd) and
# outliers (probability outlier_rate, time x U(2, 6)) for the Tukey filter.
# work_column: results files in today's kernel format, with work_seconds (0:
# no busy work); the command writes it, the tests' archives keep id,rep,seconds.
# blocks: the run's interleaved rounds (SPEC 7.6): every experiment's nrep
# repetitions split over that many rounds, each round in a new order, with
# a round column in the results (NULL: no rounds, as kernels before them);
# phase_sd: a factor per round and run (lognormal) on every time in it, a
# machine that changes speed between rounds. launch_sd: a factor per
# experiment and run (lognormal), shared by all the run's rounds of that
# experiment: what one launch fixes (placement, alignment, a draw once per
# run), the level the two-level test is about.
suppressPackageStartupMessages(library(data.table))

# The 15 message sizes of the study: 256 B * sqrt(2)^k, k = 0..14, rounded down.
study_msizes <- function() as.integer(floor(256 * sqrt(2)^(0:14) + 1e-9))

# One row per experiment, the columns of experiments.csv (registry order).
# "nbhcoll": the study's nbhcoll campaigns (3360 experiments); "small": the
# same structure, fewer levels (for tests).
synthetic_experiments <- function(campaign = c("small", "nbhcoll"), nrep = 50L) {
  campaign <- match.arg(campaign)
  if (campaign == "nbhcoll") {
    ndims <- 1:4
    msizes <- study_msizes()
    orders <- c("FMAJ", "LMAJ", "RAND")
    topologies <- c("cart", "vneum", "moore")
  } else {
    ndims <- 2L
    msizes <- c(256L, 1024L, 4096L, 16384L)
    orders <- c("FMAJ", "RAND")
    topologies <- c("cart", "vneum")
  }
  grid <- rbindlist(lapply(ndims, function(d) data.table(ndim = d, nfin = unique(c(0L, d)))))
  hoods <- rbindlist(lapply(topologies, function(t) {
    if (t == "cart") data.table(topology = t, constructor = "cart_create", radius = NA_integer_, order = NA_character_)
    else data.table(topology = t, constructor = "dist_graph_adjacent", radius = 1L, order = orders)
  }))
  ops <- data.table(op = c("neighbor_allgather", "neighbor_alltoall"))
  x <- ops[, as.list(hoods), by = op]
  x <- x[, as.list(grid), by = names(x)]
  x <- x[, .(reorder = 0:1), by = names(x)]
  x <- x[, .(msize = msizes), by = names(x)]
  x[, `:=`(datatype = "byte", nrep = as.integer(nrep), work_us = 0)]
  x[, id := .I - 1L]
  setcolorder(x, c("id", "op", "topology", "constructor", "ndim", "nfin", "radius", "order",
                   "reorder", "datatype", "msize", "nrep", "work_us"))
  x[]
}

# The assessment of the nbhcoll campaigns (SPEC 3.1) for these experiments.
synthetic_assessment <- function(campaign = c("small", "nbhcoll")) {
  campaign <- match.arg(campaign)
  lines <- c(
    "# The guidelines of the study's nbhcoll campaigns (SPEC 3.1)",
    "[collectives]", "parameter = op", "varied = msize",
    "GL4: neighbor_allgather <= neighbor_alltoall", "",
    "[cartesian vs graph]", "parameter = topology", "varied = msize",
    "GL9: topology=cart <= topology=vneum,radius=1,order=FMAJ,constructor=dist_graph_adjacent", "",
    "[orders]", "parameter = order", "varied = msize",
    "GL11: FMAJ <= RAND")
  if (campaign == "nbhcoll") lines <- c(lines, "GL11: LMAJ <= RAND")
  c(lines, "", "[reorder]", "parameter = reorder", "varied = msize", "GL12: reorder=1 <= reorder=0")
}

# True time in seconds of each experiment on p processes: latency plus bytes
# over a bandwidth; the same for every op, order, reorder and constructor.
synthetic_true_seconds <- function(experiments, nprocs) {
  neighbors <- with(experiments, fifelse(topology == "moore", 3^ndim - 1, 2 * ndim))
  (3 + 0.5 * experiments$ndim + 0.2 * log2(nprocs) + neighbors * experiments$msize / 2000) * 1e-6
}

# Factor of each experiment in one context: the product of the planted
# slowdowns whose `where` (parameter = value, including library, param_set,
# deployment, nprocs) matches.
planted_factor <- function(experiments, context, planted) {
  f <- rep(1, nrow(experiments))
  for (p in planted) {
    hit <- rep(TRUE, nrow(experiments))
    for (name in names(p$where)) {
      value <- p$where[[name]]
      if (name %in% names(context)) hit <- hit & as.character(context[[name]]) %in% as.character(value)
      else hit <- hit & !is.na(experiments[[name]]) & as.character(experiments[[name]]) %in% as.character(value)
    }
    f[hit] <- f[hit] * p$factor
  }
  f
}

write_json_object <- function(x, path) {
  writeLines(jsonlite::toJSON(x, auto_unbox = TRUE, pretty = TRUE, null = "null"), path)
}

# param_sets.csv rows of `param_sets`: set names (no parameters), or a
# named list set -> named character vector (parameter -> value).
synthetic_param_sets <- function(param_sets) {
  if (!is.list(param_sets)) param_sets <- setNames(rep(list(character()), length(param_sets)), param_sets)
  rbindlist(lapply(names(param_sets), function(s) {
    v <- param_sets[[s]]
    if (!length(v)) data.table(param_set = s, name = "", value = "")
    else data.table(param_set = s, name = names(v), value = unname(v))
  }))
}

# archive.json's param_set_check for the runs: each parameter of a run's set
# in force, unless `reported` (list set -> named character, parameter ->
# the value the library reported; NA: not reported; "": set, not
# verifiable, as the kernel records an env_only parameter) says otherwise.
synthetic_param_set_check <- function(runs, sets, reported = list()) {
  checks <- sets[nzchar(name)][runs[, .(run_id, param_set)], on = "param_set", nomatch = NULL, allow.cartesian = TRUE]
  checks[, reported := value]
  told <- reported
  for (s in names(told)) {
    for (n in names(told[[s]])) checks[param_set == s & name == n, reported := as.character(told[[s]][[n]])]
  }
  checks[, verdict := fifelse(is.na(reported), "not reported", fifelse(reported == "", "set, not verifiable",
                              fifelse(reported == value, "in force", "differs")))]
  lapply(seq_len(nrow(checks)), function(i) {
    r <- as.list(checks[i, .(run_id, param_set, name, value, reported, verdict)])
    if (is.na(r$reported)) r["reported"] <- list(NULL)
    if (r$verdict == "set, not verifiable") r$why <- "not an MPI_T variable (env_only)"
    r
  })
}

# Writes an archive directory; returns its path. `planted`: list of
# list(where = list(param = value, ...), factor = F). `param_sets`: set
# names, or a named list of parameter values per set (synthetic_param_sets),
# with `reported` what the library reported in force where it is not the
# value set (synthetic_param_set_check).
write_synthetic_archive <- function(dir, experiments, deployments = c("1x4", "2x4"), nrun = 8L,
                                    library = "openmpi", param_sets = "default", planted = list(),
                                    seed = 1L, run_sd = 0.01, rep_sd = 0.03, outlier_rate = 0.02,
                                    assessment = synthetic_assessment("small"), campaign = "synthetic",
                                    inputs = TRUE, reported = list(), work_column = FALSE, blocks = NULL,
                                    phase_sd = 0, launch_sd = 0) {
  set.seed(seed)
  if (!is.null(blocks)) experiments <- copy(experiments)[, blocks := as.integer(blocks)]
  for (sub in c("results", "inputs", "logs", "campaign", "env")) dir.create(file.path(dir, sub), recursive = TRUE, showWarnings = FALSE)
  fwrite(experiments, file.path(dir, "experiments.csv"), na = "")
  writeLines(assessment, file.path(dir, "campaign", "assessment.conf"))
  writeLines("# synthetic environment", file.path(dir, "env", "synthetic.conf"))
  sets <- synthetic_param_sets(param_sets)
  fwrite(sets, file.path(dir, "param_sets.csv"), na = "")
  version <- sprintf("%s 9.9.9 (synthetic)", library)
  runs <- CJ(deployment = deployments, param_set = unique(sets$param_set), run = seq_len(nrun), sorted = FALSE)
  runs[, `:=`(nodes = as.integer(sub("x.*", "", deployment)), ppn = as.integer(sub(".*x", "", deployment)))]
  runs[, `:=`(nprocs = nodes * ppn, run_id = sprintf("%s-%s-r%03d", deployment, param_set, run),
              library = library, library_version = version, seed = seed * 1000L + .I,
              state = "done", experiments_done = nrow(experiments), experiments_total = nrow(experiments),
              job_id = "", exit_code = 0L, hosts = "synthetic-node")]
  setcolorder(runs, c("run_id", "deployment", "nodes", "ppn", "nprocs", "run", "param_set", "library",
                      "library_version", "seed", "state", "experiments_done", "experiments_total",
                      "job_id", "exit_code", "hosts"))
  fwrite(runs, file.path(dir, "runs.csv"), na = "")
  nrep <- experiments$nrep
  for (i in seq_len(nrow(runs))) {
    r <- runs[i]
    truth <- synthetic_true_seconds(experiments, r$nprocs) *
      planted_factor(experiments, r[, .(library, param_set, deployment, nprocs)], planted) *
      exp(rnorm(1, 0, run_sd))
    if (launch_sd > 0) truth <- truth * exp(rnorm(nrow(experiments), 0, launch_sd))
    order <- sample.int(nrow(experiments))          # each run its own shuffled order
    if (is.null(blocks)) {
      id <- rep(experiments$id[order], nrep[order])
      rep <- sequence(nrep[order]) - 1L
      seconds <- rep(truth[order], nrep[order]) * exp(rnorm(length(id), 0, rep_sd))
    } else {
      rounds <- synthetic_rounds(experiments, order, as.integer(blocks))
      id <- rounds$id
      rep <- rounds$rep
      phase <- exp(rnorm(blocks, 0, phase_sd))
      seconds <- truth[match(id, experiments$id)] * phase[rounds$round] * exp(rnorm(length(id), 0, rep_sd))
    }
    spike <- runif(length(id)) < outlier_rate
    seconds[spike] <- seconds[spike] * runif(sum(spike), 2, 6)
    results <- data.table(id = id, rep = rep, seconds = signif(seconds, 10))
    if (!is.null(blocks)) results[, round := rounds$round]
    if (work_column || !is.null(blocks)) results[, work_seconds := 0]   # today's kernels: 0 without busy work
    if (!is.null(blocks)) setcolorder(results, c("id", "rep", "round", "seconds", "work_seconds"))
    fwrite(results, file.path(dir, "results", paste0(r$run_id, ".results.csv")))
    if (inputs) fwrite(cbind(experiments[order], seed = r$seed), file.path(dir, "inputs", paste0(r$run_id, ".csv")), na = "")
    write_json_object(list(status = "complete", kernel_version = "synthetic", library = library,
                           library_version = version, mpi_version = "3.1", nprocs = r$nprocs,
                           hosts = list(list(name = "synthetic-node", ranks = sprintf("0-%d", r$nprocs - 1L))),
                           start_time = "2026-01-01T00:00:00Z", end_time = "2026-01-01T00:10:00Z",
                           experiments = nrow(experiments), experiments_done = nrow(experiments),
                           countdown_rate_per_us = 1000, countdown_rate_source = "given"),
                      file.path(dir, "results", paste0(r$run_id, ".prov.json")))
    writeLines("synthetic run", file.path(dir, "logs", paste0(r$run_id, ".log")))
  }
  write_json_object(list(campaign = campaign, env = "synthetic", library = library, git_commit = "0000000",
                         created = "2026-01-01T00:00:00Z", scheduler = "local",
                         generator = "tests/analyze/synthetic_archive.R", seed = seed,
                         param_set_check = synthetic_param_set_check(runs, sets, reported)),
                    file.path(dir, "archive.json"))
  invisible(dir)
}

# The rows of a run with `blocks` interleaved rounds (kernel/rounds.c):
# round 1 in the run's order, each later round in a new one; every
# experiment's share of its nrep in each round. data.table(id, rep, round).
synthetic_rounds <- function(experiments, order, blocks) {
  nrep <- experiments$nrep
  rbindlist(lapply(seq_len(blocks), function(r) {
    o <- if (r == 1L) order else sample(order)
    share <- nrep[o] %/% blocks + (r - 1L < nrep[o] %% blocks)
    first <- (r - 1L) * (nrep[o] %/% blocks) + pmin(r - 1L, nrep[o] %% blocks)
    data.table(id = rep(experiments$id[o], share), rep = rep(first, share) + sequence(share) - 1L, round = r)
  }))
}

synthetic_main <- function(args) {
  opt <- list(campaign = "nbhcoll", out = NULL, deployments = "10x16,20x16,35x16", nrun = "30",
              nrep = "50", library = "openmpi", seed = "1", `plant-fraction` = "0.01", `param-sets` = "default",
              blocks = "", `phase-sd` = "0")
  while (length(args)) {
    key <- sub("^--", "", args[1])
    if (!key %in% names(opt) || length(args) < 2) stop("usage: synthetic_archive.R --out DIR [--campaign nbhcoll|small] ...")
    opt[[key]] <- args[2]
    args <- args[-(1:2)]
  }
  if (is.null(opt$out)) stop("--out DIR is required")
  experiments <- synthetic_experiments(opt$campaign, nrep = as.integer(opt$nrep))
  set.seed(as.integer(opt$seed))
  # Planted: a fraction of the neighbor_allgather cells 20 % slower (GL4 is a <= b).
  candidates <- experiments[op == "neighbor_allgather", id]
  chosen <- sort(sample(candidates, round(as.numeric(opt$`plant-fraction`) * nrow(experiments))))
  planted <- lapply(chosen, function(i) list(where = list(id = i), factor = 1.2))
  write_synthetic_archive(opt$out, experiments, deployments = strsplit(opt$deployments, ",")[[1]],
                          nrun = as.integer(opt$nrun), library = opt$library, planted = planted,
                          param_sets = strsplit(opt$`param-sets`, ",")[[1]],
                          seed = as.integer(opt$seed), assessment = synthetic_assessment(opt$campaign),
                          campaign = paste0("synthetic-", opt$campaign), work_column = TRUE,
                          blocks = if (nzchar(opt$blocks)) as.integer(opt$blocks), phase_sd = as.numeric(opt$`phase-sd`))
  fwrite(data.table(id = chosen, factor = rep(1.2, length(chosen))), file.path(opt$out, "planted.csv"))
  cat(opt$out, "\n", sep = "")
}

if (sys.nframe() == 0L) synthetic_main(commandArgs(TRUE))
