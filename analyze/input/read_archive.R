# Reads the tables of one archive (docs/archive.md): experiments.csv,
# runs.csv, param_sets.csv, archive.json and the runs' provenance files.
# The measurements (results/RUN.results.csv) are read run by run later
# (read_results), so that no more than one run's rows are in memory at once.

read_archive <- function(dir, registry) {
  if (!dir.exists(dir)) input_error(dir, ": no such archive directory")
  for (f in c("experiments.csv", "runs.csv")) {
    if (!file.exists(file.path(dir, f))) input_error(dir, ": not an archive (", f, " is missing)")
  }
  info <- NULL
  json <- file.path(dir, "archive.json")
  if (file.exists(json)) {
    info <- tryCatch(jsonlite::fromJSON(json, simplifyVector = FALSE),
                     error = function(e) input_error(json, ": not valid JSON (", conditionMessage(e), ")"))
  } else {
    nbh_warning(dir, ": archive.json is missing; the report has no archive provenance")
  }
  param_sets <- NULL
  if (file.exists(file.path(dir, "param_sets.csv"))) {
    param_sets <- fread(file.path(dir, "param_sets.csv"), colClasses = "character", na.strings = "")
  }
  list(dir = dir, name = basename(normalizePath(dir)), info = info, manifest = verify_manifest(dir),
       experiments = read_experiments(file.path(dir, "experiments.csv"), registry),
       runs = read_runs(file.path(dir, "runs.csv")), param_sets = param_sets)
}

# Converts the character column `x` of `file` to `type`, or stops naming
# the first line whose value is not one.
convert_column <- function(x, type, file, column) {
  if (type == "character") return(x)
  y <- suppressWarnings(if (type == "integer") as.integer(x) else as.numeric(x))
  bad <- which(!is.na(x) & (is.na(y) | (type == "integer" & grepl("[.eE]", x))))
  if (length(bad)) {
    input_error(file, ":", bad[1] + 1L, ": column ", column, ": '", x[bad[1]], "' is not ",
                if (type == "integer") "an integer" else "a number")
  }
  y
}

read_table <- function(file, required) {
  x <- tryCatch(fread(file, colClasses = "character", na.strings = "", strip.white = TRUE),
                error = function(e) input_error(file, ": cannot be read (", conditionMessage(e), ")"),
                warning = function(w) input_error(file, ": ", conditionMessage(w)))
  missing <- setdiff(required, names(x))
  if (length(missing)) input_error(file, ": column ", missing[1], " is missing")
  unescape_quotes(x)
}

# fread (data.table 1.14) keeps the doubled quotes of a quoted CSV field
# ("my""mpi" reads as my""mpi); in CSV a quote inside a field is always
# doubled, so every "" of a value read is one ". Without this a library
# named my"mpi would become my""mpi in every table the analysis writes.
unescape_quotes <- function(x) {
  for (col in names(x)) {
    v <- x[[col]]
    if (is.character(v) && any(grepl("\"\"", v, fixed = TRUE))) set(x, j = col, value = gsub("\"\"", "\"", v, fixed = TRUE))
  }
  x
}

read_experiments <- function(file, registry) {
  params <- registry$parameters[name != "seed"]
  x <- read_table(file, setdiff(params$name, LATER_PARAMETERS))
  later <- setdiff(params$name, names(x))
  for (p in later) set(x, j = p, value = NA_character_)
  moves <- x$op %in% registry$operations[moves_data == "1", name]
  for (p in intersect(later, names(LATER_DEFAULTS))) set(x, i = which(moves), j = p, value = LATER_DEFAULTS[[p]])
  extra <- setdiff(names(x), params$name)
  if (length(extra)) {
    nbh_warning(file, ": column(s) ", format_list(extra), " are not parameters of registry/parameters.csv; ignored")
    x[, (extra) := NULL]
  }
  if (!nrow(x)) input_error(file, ": no experiments")
  for (i in seq_len(nrow(params))) {
    p <- params$name[i]
    set(x, j = p, value = convert_column(x[[p]], r_type(params$type[i]), file, p))
  }
  for (p in c("id", "nrep")) {
    bad <- which(is.na(x[[p]]) | x[[p]] < if (p == "id") 0L else 1L)
    if (length(bad)) input_error(file, ":", bad[1] + 1L, ": column ", p, ": missing or out of range")
  }
  dup <- which(duplicated(x$id))
  if (length(dup)) input_error(file, ":", dup[1] + 1L, ": id ", x$id[dup[1]], " is not unique")
  analysed <- setdiff(params$name, NOT_ANALYSED)
  dup <- which(duplicated(x, by = analysed))
  if (length(dup)) {
    first <- x[x[dup[1]], on = analysed, which = TRUE][1]
    input_error(file, ": experiments ", x$id[first], " and ", x$id[dup[1]], " have the same parameters")
  }
  setcolorder(x, params$name)
  x[]
}

RUN_COLUMNS <- c("run_id", "deployment", "nprocs", "run", "param_set", "library", "state")
# Provenance only: NA where an archive lacks them.
RUN_OPTIONAL <- c("nodes", "ppn", "library_version", "seed", "experiments_done", "experiments_total",
                  "job_id", "exit_code", "hosts", "rejected_rows", "layout", "layout_detail", "ranks_per_host",
                  "cores_per_host", "oversubscribed", "reorder_experiments", "reorder_changed", "round",
                  "interleave", "slot", "launch_order")

read_runs <- function(file) {
  x <- read_table(file, RUN_COLUMNS)
  for (p in setdiff(RUN_OPTIONAL, names(x))) set(x, j = p, value = NA_character_)
  for (p in RUN_COLUMNS) {
    bad <- which(is.na(x[[p]]))
    if (length(bad)) input_error(file, ":", bad[1] + 1L, ": column ", p, " is empty")
  }
  for (p in intersect(c("nodes", "ppn", "nprocs", "run", "experiments_done", "experiments_total",
                        "reorder_experiments", "reorder_changed", "round", "slot", "launch_order"), names(x))) {
    set(x, j = p, value = convert_column(x[[p]], "integer", file, p))
  }
  dup <- which(duplicated(x$run_id))
  if (length(dup)) input_error(file, ":", dup[1] + 1L, ": run_id ", x$run_id[dup[1]], " is not unique")
  if (!nrow(x)) input_error(file, ": no runs")
  x[]
}

# One list per run: the top-level values of results/RUN.prov.json.
read_provenance <- function(archive) {
  files <- file.path(archive$dir, "results", paste0(archive$runs$run_id, ".prov.json"))
  lapply(files[file.exists(files)], function(f) {
    tryCatch(jsonlite::fromJSON(f, simplifyVector = FALSE), error = function(e) {
      nbh_warning(f, ": not valid JSON; left out of the provenance")
      NULL
    })
  })
}
