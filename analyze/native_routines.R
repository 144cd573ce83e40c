# The analyzer's C routines (analyze/native/NAME.c, R's .Call interface):
# compiled with R CMD SHLIB on first use into build/analyze/HASH/NAME.so,
# HASH the source's, so an edited source is compiled again and worktrees
# or versions never share a stale library. `make` compiles them ahead.
# Where they cannot be compiled (no C compiler, build/ not writable) the
# analysis warns once and goes on with the R code they speed up: the same
# values, slower.

NATIVE_LIBRARIES <- new.env()

# The loaded library of analyze/native/NAME.c (compiled if needed), or NULL
# if it cannot be had.
native_library <- function(name, root = Sys.getenv("NBH_ROOT", ".")) {
  known <- NATIVE_LIBRARIES[[name]]
  if (!is.null(known)) return(if (isFALSE(known)) NULL else known)
  source <- file.path(root, "analyze", "native", paste0(name, ".c"))
  loaded <- tryCatch({
    hash <- substr(unname(tools::md5sum(source)), 1L, 12L)
    if (is.na(hash)) stop("no such file")
    library_file <- file.path(root, "build", "analyze", hash, paste0(name, .Platform$dynlib.ext))
    if (!file.exists(library_file)) compile_native(source, library_file)
    dyn.load(library_file)
  }, error = function(e) {
    nbh_warning(source, " cannot be compiled (", gsub("\n", " ", conditionMessage(e)),
                "); the analysis uses R alone, with the same results, more slowly")
    FALSE
  })
  NATIVE_LIBRARIES[[name]] <- loaded
  if (isFALSE(loaded)) NULL else loaded
}

# Compiles in a private directory, then renames into place: analyses that
# start together never load a half-written library.
compile_native <- function(source, library_file) {
  work <- tempfile("nbh-native-")
  dir.create(work)
  on.exit(unlink(work, recursive = TRUE))
  file.copy(source, work)
  built <- file.path(work, basename(library_file))
  # -ffp-contract=off: no fused multiply-add, so the C arithmetic is R's, bit for bit.
  log <- suppressWarnings(system2(file.path(R.home("bin"), "R"), c("CMD", "SHLIB", "-o", shQuote(built),
                                  shQuote(file.path(work, basename(source)))), stdout = TRUE, stderr = TRUE,
                                  env = "PKG_CFLAGS='-ffp-contract=off -Wall -Wextra -Werror'"))
  if (!file.exists(built)) {
    errors <- grep("error:", log, value = TRUE)
    stop(if (length(errors)) errors[1] else paste(utils::tail(log, 2L), collapse = " "))
  }
  dir.create(dirname(library_file), recursive = TRUE, showWarnings = FALSE)
  if (!file.rename(built, library_file) && !file.exists(library_file)) stop("cannot write ", library_file)
}
