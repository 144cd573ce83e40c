# The analyzer's C routines (analyze/native/*.c, R's .Call interface): one
# library, compiled with R CMD SHLIB on first use into
# build/analyze/HASH/nbh_analyze.so, HASH that of the sources, so an edited
# source is compiled again and worktrees or versions never share a stale
# library. `make` compiles it ahead. Where it cannot be compiled (no C
# compiler, build/ not writable) the analysis warns once and goes on with
# the R code the routines speed up: the same values, slower.

NATIVE_LIBRARIES <- new.env()
NATIVE_NAME <- "nbh_analyze"

# The loaded library of analyze/native/*.c (compiled if needed), or NULL if
# it cannot be had.
native_library <- function(root = Sys.getenv("NBH_ROOT", ".")) {
  known <- NATIVE_LIBRARIES[[root]]
  if (!is.null(known)) return(if (isFALSE(known)) NULL else known)
  dir <- file.path(root, "analyze", "native")
  loaded <- tryCatch({
    library_file <- native_library_file(root)
    if (!file.exists(library_file)) compile_native(native_sources(root), library_file)
    load_native(library_file)
  }, error = function(e) {
    nbh_warning(dir, "/*.c cannot be compiled (", gsub("\n", " ", conditionMessage(e)),
                "); the analysis uses R alone, with the same results, more slowly")
    FALSE
  })
  NATIVE_LIBRARIES[[root]] <- loaded
  if (isFALSE(loaded)) NULL else loaded
}

# dyn.load(library_file), once: loaded again, a library would lose what it
# holds (main.R loads it first, to read ahead).
load_native <- function(library_file) {
  loaded <- getLoadedDLLs()[[NATIVE_NAME]]
  if (!is.null(loaded) && identical(loaded[["path"]], library_file)) loaded else dyn.load(library_file)
}

# analyze/native/*.[ch] of ROOT.
native_sources <- function(root = Sys.getenv("NBH_ROOT", ".")) {
  dir <- file.path(root, "analyze", "native")
  sources <- sort(list.files(dir, pattern = "\\.[ch]$", full.names = TRUE))
  if (!any(grepl("\\.c$", sources))) stop("no C sources in ", dir)
  sources
}

# Where the library of ROOT's sources is, compiled or not.
native_library_file <- function(root = Sys.getenv("NBH_ROOT", ".")) {
  hash <- substr(digest_of(native_sources(root)), 1L, 12L)
  file.path(root, "build", "analyze", hash, paste0(NATIVE_NAME, .Platform$dynlib.ext))
}

# Whether the library is loaded already (native_library loads it).
native_loaded <- function(root = Sys.getenv("NBH_ROOT", ".")) {
  inherits(NATIVE_LIBRARIES[[root]], "DLLInfo")
}

# .Call of a routine of the library, or NULL without it.
call_native <- function(routine, ...) {
  if (is.null(native_library())) return(NULL)
  .Call(routine, ..., PACKAGE = NATIVE_NAME)
}

# One md5 of the files' names and contents.
digest_of <- function(files) {
  listing <- tempfile("nbh-sources-")
  on.exit(unlink(listing))
  writeLines(paste(basename(files), tools::md5sum(files)), listing)
  unname(tools::md5sum(listing))
}

# Compiles in a private directory, then renames into place: analyses that
# start together never load a half-written library.
compile_native <- function(sources, library_file) {
  work <- tempfile("nbh-native-")
  dir.create(work)
  on.exit(unlink(work, recursive = TRUE))
  file.copy(sources, work)
  built <- file.path(work, basename(library_file))
  c_files <- file.path(work, basename(grep("\\.c$", sources, value = TRUE)))
  # -ffp-contract=off: no fused multiply-add, so the C arithmetic is R's, bit for bit.
  log <- suppressWarnings(system2(file.path(R.home("bin"), "R"), c("CMD", "SHLIB", "-o", shQuote(built),
                                  shQuote(c_files)), stdout = TRUE, stderr = TRUE,
                                  env = "PKG_CFLAGS='-ffp-contract=off -Wall -Wextra -Werror'"))
  if (!file.exists(built)) {
    errors <- grep("error:", log, value = TRUE)
    stop(if (length(errors)) errors[1] else paste(utils::tail(log, 2L), collapse = " "))
  }
  dir.create(dirname(library_file), recursive = TRUE, showWarnings = FALSE)
  if (!file.rename(built, library_file) && !file.exists(library_file)) stop("cannot write ", library_file)
}
