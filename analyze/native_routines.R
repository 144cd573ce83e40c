# The analyzer's C routines (analyze/native/NAME.c, R's .Call interface):
# compiled with R CMD SHLIB on first use into build/analyze/HASH/NAME.so,
# HASH the source's, so an edited source is compiled again and worktrees
# or versions never share a stale library. `make` compiles them ahead.

NATIVE_LIBRARIES <- new.env()

# The loaded library of analyze/native/NAME.c (compiled if needed).
native_library <- function(name, root = Sys.getenv("NBH_ROOT", ".")) {
  if (!is.null(NATIVE_LIBRARIES[[name]])) return(NATIVE_LIBRARIES[[name]])
  source <- file.path(root, "analyze", "native", paste0(name, ".c"))
  hash <- substr(unname(tools::md5sum(source)), 1L, 12L)
  library_file <- file.path(root, "build", "analyze", hash, paste0(name, .Platform$dynlib.ext))
  if (!file.exists(library_file)) compile_native(source, library_file)
  NATIVE_LIBRARIES[[name]] <- dyn.load(library_file)
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
  if (!file.exists(built)) stop("cannot compile ", source, ": ", paste(utils::tail(log, 5L), collapse = " "))
  dir.create(dirname(library_file), recursive = TRUE, showWarnings = FALSE)
  if (!file.rename(built, library_file) && !file.exists(library_file)) {
    stop("cannot write ", library_file)
  }
}
