# What is checked about the archives themselves before they are analysed
# (docs/analyze.md, "What is read"):
#   - each archive is given once: the same directory twice, two copies of
#     one archive (identical MANIFEST.sha256), or two archives that hold the
#     same launch (archive_launches: `archive` twice, or archive, resume,
#     archive) would count its runs twice;
#   - each archive's files match its MANIFEST.sha256 (sha256sum -c); a
#     mismatch is a warning naming the files (nbhbench archive --verify
#     tells more), an archive without a manifest is said so in the report;
#   - runs that `nbhbench archive` marked damaged (malformed rows in their
#     results, docs/archive.md) are left out, with a warning.

check_distinct_archives <- function(dirs) {
  paths <- normalizePath(dirs, mustWork = FALSE)
  dup <- which(duplicated(paths))
  if (length(dup)) {
    first <- match(paths[dup[1]], paths)
    input_error(dirs[dup[1]], ": given twice (as ", dirs[first], "); an archive is analysed once, ",
                "or its runs would count twice")
  }
  manifests <- file.path(dirs, "MANIFEST.sha256")
  have <- file.exists(manifests)
  sums <- rep(NA_character_, length(dirs))
  sums[have] <- unname(tools::md5sum(manifests[have]))
  dup <- which(duplicated(sums, incomparables = NA))
  if (length(dup)) {
    first <- match(sums[dup[1]], sums)
    input_error(dirs[dup[1]], " and ", dirs[first], " are the same archive (identical MANIFEST.sha256); ",
                "an archive is analysed once, or its runs would count twice")
  }
  check_shared_launches(dirs)
  invisible(dirs)
}

# One line, and no analysis, where two of DIRS hold the same launch: their
# rows of it would count twice. Names the later one that holds every launch
# of the other (an archive made again, or after submit --resume).
check_shared_launches <- function(dirs) {
  if (length(dirs) < 2L) return(invisible(dirs))
  launches <- rbindlist(lapply(seq_along(dirs), function(k) archive_launches(dirs[k])[, archive := k]))
  shared <- launches[, if (uniqueN(archive) > 1L) .SD, by = launch]
  if (!nrow(shared)) return(invisible(dirs))
  pair <- sort(unique(shared$archive))[1:2]
  both <- unique(shared[archive == pair[1], .(run_id, attempt)])
  of <- lapply(pair, function(k) launches[archive == k, launch])
  holds <- c(all(of[[1]] %in% of[[2]]), all(of[[2]] %in% of[[1]]))
  advice <- if (holds[1]) sprintf("; %s holds every run of %s: analyse it alone", dirs[pair[2]], dirs[pair[1]]) else
    if (holds[2]) sprintf("; %s holds every run of %s: analyse it alone", dirs[pair[1]], dirs[pair[2]]) else
      "; analyse them apart"
  first <- both[1]
  input_error(dirs[pair[1]], " and ", dirs[pair[2]], " hold the same launch (run ", first$run_id,
              if (!is.na(first$attempt)) paste0(" attempt ", first$attempt), if (nrow(both) > 1L)
                sprintf(" and %d more", nrow(both) - 1L), "): archives of one workspace, whose runs would ",
              "count twice", advice)
}

# What tells a launch (one attempt of one run) from every other, for each
# run of the archive in DIR: data.table(run_id, attempt, launch). An
# attempt's record (attempts/RUN.aN.json) names its run, its number, the
# workspace it wrote into (prefix) and when it was submitted; a run without
# records is known by its library, its id and the SHA-256 of its results
# (from MANIFEST.sha256, else the file's md5). docs/archive.md.
archive_launches <- function(dir) {
  none <- data.table(run_id = character(), attempt = integer(), launch = character())
  runs <- tryCatch(fread(file.path(dir, "runs.csv"), select = c("run_id", "library"), colClasses = "character"),
                   error = function(e) NULL, warning = function(w) NULL)
  if (is.null(runs) || !nrow(runs)) return(none)
  files <- list.files(file.path(dir, "attempts"), pattern = "\\.a[0-9]+\\.json$", full.names = TRUE)
  recorded <- rbindlist(lapply(files, function(f) {
    r <- tryCatch(jsonlite::fromJSON(f, simplifyVector = TRUE), error = function(e) NULL)
    fields <- c("run_id", "attempt", "prefix", "submitted")
    if (!is.list(r) || !all(vapply(fields, function(k) length(r[[k]]) == 1L, TRUE))) return(NULL)
    data.table(run_id = as.character(r$run_id), attempt = as.integer(r$attempt),
               launch = paste("attempt", r$run_id, r$attempt, r$prefix, r$submitted))
  }))
  if (!nrow(recorded)) recorded <- none
  rest <- runs[!run_id %in% recorded$run_id]
  if (!nrow(rest)) return(recorded)
  files <- file.path("results", paste0(rest$run_id, ".results.csv"))
  sums <- manifest_sums(dir)[files]
  missing <- is.na(sums) & file.exists(file.path(dir, files))
  sums[missing] <- unname(tools::md5sum(file.path(dir, files[missing])))
  rbind(recorded, rest[!is.na(sums), .(run_id, attempt = NA_integer_,
                                       launch = paste("content", library, run_id, sums[!is.na(sums)]))])
}

# The SHA-256 of each file MANIFEST.sha256 lists, named by the file.
manifest_sums <- function(dir) {
  manifest <- file.path(dir, "MANIFEST.sha256")
  lines <- if (file.exists(manifest)) readLines(manifest, warn = FALSE) else character()
  lines <- lines[grepl("^[0-9a-f]{64}  ", lines)]
  stats::setNames(substr(lines, 1L, 64L), substring(lines, 67L))
}

# "intact (N files)", "N of M files differ from MANIFEST.sha256" (with a
# warning) or "no MANIFEST.sha256": what the report says of an archive.
verify_manifest <- function(dir) {
  manifest <- file.path(dir, "MANIFEST.sha256")
  if (!file.exists(manifest)) return("no MANIFEST.sha256: not verified")
  listed <- length(readLines(manifest, warn = FALSE))
  out <- suppressWarnings(system(sprintf("cd %s && sha256sum --quiet --check MANIFEST.sha256 2>&1",
                                         shQuote(dir)), intern = TRUE))
  bad <- sub(":[^:]*FAILED.*$", "", grep("FAILED", out, value = TRUE))
  status <- attr(out, "status")
  if (!length(bad) && !is.null(status) && status != 0L) bad <- "MANIFEST.sha256"
  if (!length(bad)) return(sprintf("intact (%d files match MANIFEST.sha256)", listed))
  nbh_warning(dir, ": ", length(bad), " file(s) do not match MANIFEST.sha256 (", format_list(bad, 3L),
              "); the archive changed after archiving (nbhbench archive --verify ", dir, ")")
  sprintf("%d of %d files do not match MANIFEST.sha256: %s", length(bad), listed, format_list(bad, 3L))
}

# The archive without the runs archived as damaged.
without_damaged_runs <- function(archive) {
  damaged <- archive$runs[state == "damaged", run_id]
  if (length(damaged)) {
    nbh_warning(archive$dir, ": run(s) ", format_list(damaged), " were archived as damaged (malformed rows ",
                "in their results, see results/RUN.rejected.csv); left out")
    archive$runs <- archive$runs[state != "damaged"]
  }
  archive$damaged_runs <- damaged
  archive
}
