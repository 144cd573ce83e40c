# Were the library parameter sets in force? The archive lists each set's
# values (param_sets.csv) and, per run and parameter, what the library
# reported through MPI_T (archive.json's param_set_check: verdict in force,
# differs or not reported; or "set, not verifiable" for a parameter MPI_T
# cannot show, such as Intel MPI's I_MPI_ADJUST_*, that the kernel found in
# the processes' environment). A parameter that differs or is not reported
# in any run is a warning: the set's measurements may not be what its name
# says. One that is set but not verifiable is said so in the report.

# The param_set_check of archive.json as a table: run_id, param_set, name,
# value, reported, verdict, why (NULL when archive.json has none).
param_set_checks <- function(info) {
  checks <- info$param_set_check
  if (is.null(checks)) return(NULL)
  text <- function(v) if (is.null(v) || !length(v)) NA_character_ else as.character(v[[1]])
  fields <- c("run_id", "param_set", "name", "value", "reported", "verdict", "why")
  x <- rbindlist(lapply(checks, function(c) setNames(lapply(fields, function(f) text(c[[f]])), fields)))
  if (!nrow(x)) x <- setNames(as.data.table(rep(list(character()), length(fields))), fields)
  x[]
}

# One row per parameter of each set of an archive: param_set, name, value
# (set), runs (of the set in runs.csv), checked (runs with a check),
# in_force, differs, not_reported, not_verifiable (runs), reported (the
# values the library reported, `; `-separated), why (why not verifiable),
# and check: "in force", "differs", "not reported" (in at least one run;
# differs first), "set, not verifiable" or "not checked".
param_set_provenance <- function(archive) {
  ps <- archive$param_sets
  if (is.null(ps) || !nrow(ps)) return(NULL)
  ps <- ps[!is.na(name) & nzchar(name), .(param_set, name, value)]
  if (!nrow(ps)) return(ps[, .(param_set, name, value, runs = integer(), checked = integer(), in_force = integer(),
                               differs = integer(), not_reported = integer(), not_verifiable = integer(),
                               reported = character(), why = character(), check = character())])
  runs <- archive$runs[, .(runs = .N), by = param_set]
  ps[runs, on = "param_set", runs := i.runs]
  ps[is.na(runs), runs := 0L]
  checks <- param_set_checks(archive$info)
  if (is.null(checks) || !nrow(checks)) {
    ps[, `:=`(checked = 0L, in_force = 0L, differs = 0L, not_reported = 0L, not_verifiable = 0L,
              reported = NA_character_, why = NA_character_)]
  } else {
    counts <- checks[, .(checked = uniqueN(run_id), in_force = sum(verdict == "in force"),
                         differs = sum(verdict == "differs"), not_reported = sum(verdict == "not reported"),
                         not_verifiable = sum(verdict == "set, not verifiable"),
                         reported = paste(unique(na.omit(reported[nzchar(reported)])), collapse = "; "),
                         why = paste(unique(na.omit(why)), collapse = "; ")),
                     by = .(param_set, name)]
    ps[counts, on = c("param_set", "name"), `:=`(checked = i.checked, in_force = i.in_force, differs = i.differs,
                                                  not_reported = i.not_reported, not_verifiable = i.not_verifiable,
                                                  reported = i.reported, why = i.why)]
    for (col in c("checked", "in_force", "differs", "not_reported", "not_verifiable"))
      set(ps, i = which(is.na(ps[[col]])), j = col, value = 0L)
    ps[!nzchar(reported), reported := NA_character_]
    ps[!nzchar(why), why := NA_character_]
  }
  ps[, check := fifelse(differs > 0L, "differs", fifelse(not_reported > 0L, "not reported",
                        fifelse(not_verifiable > 0L, "set, not verifiable",
                        fifelse(checked > 0L, "in force", "not checked"))))]
  ps[]
}

# One warning per parameter that was not in force (differs, not reported)
# in some run, and one per archive with parameters but no param_set_check.
warn_param_sets_not_in_force <- function(archive) {
  p <- param_set_provenance(archive)
  if (is.null(p) || !nrow(p)) return(invisible())
  if (is.null(archive$info$param_set_check)) {
    nbh_warning(archive$name, ": archive.json has no param_set_check; whether the values of parameter set(s) ",
                format_list(unique(p$param_set)), " were in force is not known")
    return(invisible())
  }
  for (i in which(p$check %in% c("differs", "not reported"))) {
    r <- p[i]
    nbh_warning(archive$name, ": parameter set ", r$param_set, ": ", r$name, " = ", r$value, " was ",
                if (r$differs > 0L) {
                  sprintf("not in force in %d of %d checked runs (the library reported %s)", r$differs,
                          r$checked, r$reported)
                } else {
                  sprintf("not reported by the library (MPI_T) in %d of %d checked runs; whether it was in force is not known",
                          r$not_reported, r$checked)
                })
  }
}
