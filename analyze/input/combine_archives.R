# Puts one or several archives into one frame of reference:
#   experiments  one row per distinct parameter combination (exp), whatever
#                its id in each archive;
#   runs         every run of every archive (run = 1..R over all archives),
#                with its context (library, param_set, deployment, nprocs);
#   cells        one row per experiment in a context of the same archive:
#                the unit of the assessment, with all analysis parameters;
#   ids          (archive, id) -> exp, to place each archive's measurements.
# Several archives with runs of the same context are pooled (with a warning).

combine_archives <- function(archives, params) {
  exp_params <- params[source == "experiment", name]
  ids <- rbindlist(lapply(seq_along(archives), function(a) {
    archives[[a]]$experiments[, c("id", "nrep", exp_params), with = FALSE][, archive := a]
  }))
  experiments <- unique(ids[, exp_params, with = FALSE])
  experiments[, exp := .I]
  ids[experiments, on = exp_params, exp := i.exp]
  runs <- rbindlist(lapply(archives, `[[`, "runs"), fill = TRUE, idcol = "archive")
  runs[, `:=`(run_key = .I, archive_name = vapply(archives, `[[`, "", "name")[archive])]
  runs[, context := .GRP, by = RUN_PARAMETERS]
  shared <- runs[, .(archives = uniqueN(archive), names = paste(unique(archive_name), collapse = " and ")),
                 by = c("context", RUN_PARAMETERS)][archives > 1L]
  for (i in seq_len(nrow(shared))) {
    s <- shared[i]
    nbh_warning("archives ", s$names, " both have runs of ", s$library, " ", s$param_set, " ", s$deployment,
                "; their runs are pooled")
  }
  contexts <- unique(runs[, c("context", RUN_PARAMETERS), with = FALSE])
  setkey(contexts, context)
  cells <- unique(rbindlist(lapply(seq_along(archives), function(a) {
    CJ(exp = ids[archive == a, exp], context = runs[archive == a, unique(context)])
  })))
  cells <- contexts[cells, on = "context"][experiments, on = "exp", nomatch = NULL]
  setorderv(cells, c(RUN_PARAMETERS, exp_params), na.last = TRUE)
  cells[, cell := .I]
  setcolorder(cells, c("cell", "exp", "context", params$name))
  list(experiments = experiments, runs = runs, cells = cells, ids = ids)
}
