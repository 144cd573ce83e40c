# What is checked about the archives themselves before they are analysed
# (docs/analyze.md, "What is read"):
#   - each archive is given once: the same directory twice, or two copies of
#     one archive (identical MANIFEST.sha256), would count every run twice;
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
  invisible(dirs)
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
