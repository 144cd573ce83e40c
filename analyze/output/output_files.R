# Whole or nothing: every file of an analysis goes through here
# (docs/robustness.md). An analysis is built in a staging directory beside
# --out DIR (.NAME.partial-PID, same file system) and renamed to DIR only
# when every file is whole; on any error the staging directory is removed
# and DIR is left as it was (an earlier analysis stays intact).
#
# R does not always say when a disk is full: data.table's fwrite and the
# cairo PNG/PDF devices return normally after a short write. So each file
# is checked once written: a CSV ends in a newline with one line per row
# and the header, a PNG ends in its IEND chunk, a PDF in %%EOF; a text file
# (report.html, report.md, warnings.txt, look.json, the marker) and a copy
# have the size of the bytes written once closed. A file that is
# not whole is an nbh_output_error naming it (in DIR, never the staging
# name) and the reason the file system gives ("No space left on device").
#
#   with_output_directory(dir, build)  build(staged) writes the analysis; then published as dir
#   write_table_file(x, file)          a CSV (fwrite), checked
#   write_text_file(lines, file)       text lines (UTF-8), its size checked once closed
#   check_plot_file(file)              a PNG or PDF a device wrote, checked
#   copy_output_file(from, file)       a whole copy (plots are drawn in tempdir(): a device
#                                      that hits a full disk prints to stderr)

MARKER <- ".nbhbench-analysis"

# The reason a file system gives for not taking more bytes in FILE's
# directory ("No space left on device"), or NULL if it takes them now.
write_refusal <- function(file) {
  probe <- file.path(dirname(file), sprintf(".nbh-probe-%d", Sys.getpid()))
  on.exit(unlink(probe))
  tryCatch({
    con <- file(probe, "w")
    on.exit(close(con), add = TRUE, after = FALSE)
    writeLines(strrep("x", 65535L), con)  # writeLines, not writeBin: its error names the reason
    flush(con)
    NULL
  }, error = function(e) sub("^.*:\\s+", "", conditionMessage(e)),
     warning = function(w) sub("^.*:\\s+", "", conditionMessage(w)))
}

# Stops with an nbh_output_error: FILE is not whole.
not_whole <- function(file, what) {
  reason <- write_refusal(file)
  output_error(file, ": ", if (is.null(reason)) paste0(what, " (written incompletely)") else reason)
}

write_table_file <- function(x, file) {
  if (!ncol(x)) return(write_text_file(character(), file))  # fwrite would write nothing at all
  tryCatch(fwrite(x, file, na = ""), error = function(e) {
    output_error(file, ": ", sub(":\\s*'[^']*'\\s*$", "", conditionMessage(e)))  # fwrite adds the path
  })
  lines <- count_lines(file)
  whole <- lines$last_is_newline &&
    (lines$newlines == nrow(x) + 1L ||
       nrow(tryCatch(fread(file, colClasses = "character"), error = function(e) data.table())) == nrow(x))
  if (!whole) not_whole(file, "a CSV file cut short")
  invisible(file)
}

# list(newlines, last_is_newline) of a file (0 and FALSE if it cannot be read).
count_lines <- function(file) {
  counted <- call_native("nbh_count_lines", file)
  if (!is.null(counted)) return(list(newlines = counted[1], last_is_newline = counted[2] == 1))
  size <- file.size(file)
  bytes <- if (is.na(size)) raw() else readBin(file, "raw", size)
  list(newlines = sum(bytes == as.raw(10L)),
       last_is_newline = length(bytes) > 0L && bytes[length(bytes)] == as.raw(10L))
}

# The bytes are written through a binary connection and the file's size is
# checked after it is closed: a text-mode connection that re-encodes (as
# file(encoding = "UTF-8") does) reports no failed write, and a short write
# can also surface only when the connection is closed.
write_text_file <- function(lines, file) {
  text <- enc2utf8(as.character(lines))
  bytes <- if (length(text)) charToRaw(paste0(text, "\n", collapse = "")) else raw()
  write_bytes(bytes, file, "a text file cut short")
}

# A status line (a progress line, plots/plot_progress.R) to OUT: a
# connection such as stderr(), or a file name appended to. No output of the
# analysis: a lost status line loses no result, so it is not checked.
show_status <- function(text, out) {
  if (is.character(out)) cat(text, file = out, sep = "", append = TRUE) else cat(text, file = out, sep = "")
}

# Writes BYTES to FILE whole or stops with an nbh_output_error (WHAT says
# what was cut where the file system gives no reason).
write_bytes <- function(bytes, file, what) {
  said <- function(e) sub("^.*:\\s+", "", conditionMessage(e))
  con <- tryCatch(file(file, "wb"), error = function(e) output_error(file, ": ", said(e)),
                  warning = function(w) output_error(file, ": ", said(w)))
  failed <- tryCatch({
    writeBin(bytes, con)
    flush(con)
    FALSE
  }, error = function(e) TRUE, warning = function(w) TRUE)
  failed <- tryCatch({
    close(con)
    FALSE
  }, error = function(e) TRUE, warning = function(w) TRUE) || failed
  if (failed || !isTRUE(file.size(file) == length(bytes))) not_whole(file, what)
  invisible(file)
}

check_plot_file <- function(file) {
  size <- file.size(file)
  tail <- if (is.na(size) || size < 12) raw() else {
    con <- file(file, "rb")
    on.exit(close(con))
    seek(con, size - 12)
    readBin(con, "raw", 12L)
  }
  whole <- if (grepl("\\.png$", file)) {
    length(tail) == 12L && identical(tail[5:8], charToRaw("IEND"))
  } else {
    length(tail) > 0L && grepl("%%EOF", rawToChar(tail[tail != as.raw(0L)]), fixed = TRUE)
  }
  if (!whole) not_whole(file, "a plot cut short")
  invisible(file)
}

copy_output_file <- function(from, file) {
  write_bytes(readBin(from, "raw", file.size(from)), file, "a copy cut short")
}

# DIR must be new, empty, or an earlier analysis (it has MARKER); returns
# whether it holds an earlier analysis (which the new one replaces).
check_output_dir <- function(dir) {
  if (file.exists(dir) && !dir.exists(dir)) {
    foreign_out_error(dir, " exists and is not a directory; choose another --out")
  }
  earlier <- file.exists(file.path(dir, MARKER))
  if (dir.exists(dir) && length(list.files(dir, all.files = TRUE, no.. = TRUE)) && !earlier) {
    foreign_out_error(dir, " exists and is not an earlier nbhbench analysis (no ", MARKER, "); nothing there is ",
                      "replaced: choose another --out")
  }
  earlier
}

# Runs build(staged) in a new staging directory beside DIR, then puts it in
# DIR's place (an earlier analysis there is replaced whole). Output errors
# name DIR's files. Returns build's value.
with_output_directory <- function(dir, build) {
  check_output_dir(dir)
  parent <- dirname(dir)
  if (!dir.exists(parent) && !dir.create(parent, recursive = TRUE, showWarnings = FALSE)) {
    output_error(parent, ": cannot create the directory")
  }
  staged <- file.path(parent, sprintf(".%s.partial-%d", basename(dir), Sys.getpid()))
  unlink(staged, recursive = TRUE)
  on.exit(unlink(staged, recursive = TRUE), add = TRUE)
  if (!dir.create(staged, showWarnings = FALSE) || file.access(staged, 2L) != 0L) {
    output_error(dir, ": cannot create or write the directory")
  }
  value <- tryCatch({
    write_text_file("nbhbench analyze output; its files are replaced by the next analysis into this directory",
                    file.path(staged, MARKER))
    build(staged)
  }, nbh_output_error = function(e) {
    output_error(gsub(staged, dir, conditionMessage(e), fixed = TRUE),
                 "; ", dir, " was left as it was")
  })
  publish_directory(staged, dir)
  value
}

# Flushes the directory TREE and all it holds to the disk: its file system
# at once (syncfs), else every path (fsync); a failure is an output error of DIR.
sync_tree <- function(tree, dir) {
  whole <- tryCatch(call_native("nbh_sync_file_system", tree), error = function(e) {
    output_error(dir, ": cannot flush the analysis to the disk (", conditionMessage(e), ")")
  })
  if (!isTRUE(whole)) {
    sync_paths(c(list.files(tree, recursive = TRUE, all.files = TRUE, full.names = TRUE, include.dirs = TRUE), tree),
               dir)
  }
  invisible(TRUE)
}

# Flushes PATHS to the disk (fsync; sync(1) without the analyzer's C
# routines); a failure is an output error of DIR.
sync_paths <- function(paths, dir) {
  done <- tryCatch(call_native("nbh_sync_paths", paths), error = function(e) {
    output_error(dir, ": cannot flush the analysis to the disk (", conditionMessage(e), ")")
  })
  if (is.null(done) && length(paths) && system2("sync", shQuote(paths), stdout = FALSE, stderr = FALSE) != 0L) {
    output_error(dir, ": cannot flush the analysis to the disk (sync failed)")
  }
  invisible(TRUE)
}

# Renames the complete directory STAGED to DIR, replacing DIR's earlier
# analysis: swapped with it in one step (nbh_exchange_paths), so that DIR
# holds an analysis at every moment, even if this process is killed; the
# earlier one, now at STAGED, is removed after. Where the swap cannot be
# had (no C compiler for the analyzer's routines, a file system or kernel
# without RENAME_EXCHANGE, a seccomp filter that refuses it), two renames,
# with DIR missing between them. Every staged file and directory is
# flushed to the disk before, and the parent directory after, so that a
# power loss never leaves DIR naming empty files.
publish_directory <- function(staged, dir) {
  old <- NULL
  sync_tree(staged, dir)
  if (dir.exists(dir)) {
    swapped <- tryCatch(call_native("nbh_exchange_paths", staged, dir), error = function(e) {
      output_error(dir, ": cannot replace the earlier analysis (", conditionMessage(e), ")")
    })
    if (isTRUE(swapped)) {
      sync_paths(dirname(dir), dir)   # the swapped names reach the disk
      return(invisible(unlink(staged, recursive = TRUE)))
    }
    old <- file.path(dirname(dir), sprintf(".%s.old-%d", basename(dir), Sys.getpid()))
    if (!file.rename(dir, old)) output_error(dir, ": cannot replace the earlier analysis")
  }
  if (!file.rename(staged, dir)) {
    if (!is.null(old)) file.rename(old, dir)
    output_error(dir, ": cannot move the new analysis into place")
  }
  sync_paths(dirname(dir), dir)
  if (!is.null(old)) unlink(old, recursive = TRUE)
}
