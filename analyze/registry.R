# What the analyzer takes from registry/*.csv (the one list of parameters,
# operations and guidelines) and from docs/archive.md (the run parameters).

# The parameters of runs.csv that are parameters of the analysis. `deployment`
# (NxP) is kept beside `nprocs` so that 2x8 and 4x4 are never pooled.
RUN_PARAMETERS <- c("library", "param_set", "deployment", "nprocs")
# Columns of experiments.csv that are not parameters of the analysis: how
# the experiment was measured, not what (the rounds of SPEC 7.6, the warm-up,
# a twin's original; `twin` itself is a parameter: AA compares by it).
NOT_ANALYSED <- c("id", "nrep", "seed", "blocks", "first_round", "warmup", "twin_of")
# Parameters added after archives were made: an experiments.csv without
# the column is read as if the parameter did not apply (NA), so that such
# an archive is analysed exactly as before.
LATER_PARAMETERS <- c("work_factor", "graph", "weights", "layout", "type_constructor", "packing", "unit", "unit2",
                      "stride", "stride2", "halo_n", "matrix_n", "arrival", "arrival_us", "late_rank", "sync", "twin",
                      "blocks", "first_round", "warmup", "twin_of")
# ... except where the value before the parameter existed is known: every
# operation that moves data moved contiguous data, described by the basic
# type, packed by the library. Such an archive's cells then meet today's
# contiguous cells (a release regression against an old baseline, an
# assessment side that fixes layout=contiguous).
LATER_DEFAULTS <- c(layout = "contiguous", type_constructor = "basic", packing = "datatype")

read_registry <- function(root) {
  read <- function(name) {
    path <- file.path(root, "registry", name)
    if (!file.exists(path)) input_error("registry file ", path, " is missing")
    fread(path, colClasses = "character", na.strings = NULL)
  }
  list(parameters = read("parameters.csv"), guidelines = read("guidelines.csv"),
       operations = read("operations.csv"), limits = read("limits.csv"), analysis = read("analysis.csv"),
       layouts = read("layouts.csv"))
}

# A default of the analysis (registry/analysis.csv), as a number where it is one.
analysis_default <- function(registry, name) {
  value <- registry$analysis$value[registry$analysis$name == name]
  if (!length(value)) input_error("registry/analysis.csv has no ", name)
  number <- suppressWarnings(as.numeric(value))
  if (is.na(number)) value else number
}

# Stops unless VALUE is within the bound BOUND of registry/limits.csv
# (inclusive); WHAT names where the value came from (an option).
check_limit <- function(limits, bound, value, what) {
  row <- limits[match(bound, limits$name)]
  if (is.na(row$name)) input_error("registry/limits.csv has no bound ", bound)
  low <- suppressWarnings(as.numeric(row$min))
  high <- suppressWarnings(as.numeric(row$max))
  if (is.na(value) || (!is.na(low) && value < low) || (!is.na(high) && value > high)) {
    input_error(what, ": ", value, " is outside ", row$min, "..", row$max, " (registry/limits.csv: ", bound, ")")
  }
  value
}

# The parameters of the analysis in a fixed order: run parameters, then the
# experiment parameters in registry order. type: integer, number, word or path.
analysis_parameters <- function(registry) {
  p <- registry$parameters[!name %in% NOT_ANALYSED, .(name, type, source = "experiment")]
  rbind(data.table(name = RUN_PARAMETERS, type = c("word", "word", "word", "integer"), source = "run"), p)
}

# The R vector type of a registry type.
r_type <- function(type) {
  c(integer = "integer", number = "double", word = "character", path = "character")[type]
}
