# What the analyzer checks about the archives themselves (check_archives.R)
# and the files it refuses to read (parse_assessment.R), and that an
# analysis appears whole or not at all (output_files.R).

archive_with_manifest <- function() {
  dir <- planted_archive(nrun = 4L)
  files <- setdiff(list.files(dir, recursive = TRUE), "MANIFEST.sha256")
  sums <- vapply(files, function(f) digest_of(file.path(dir, f)), "")
  writeLines(paste0(sums, "  ", files), file.path(dir, "MANIFEST.sha256"))
  dir
}
digest_of <- function(file) sub(" .*$", "", system2("sha256sum", shQuote(file), stdout = TRUE))
copy_to <- function(dir) {
  to <- tempfile("copy-")
  dir.create(to)
  file.copy(dir, to, recursive = TRUE)
  file.path(to, basename(dir))
}

test_that("the same archive given twice, or a copy of it, is refused", {
  dir <- archive_with_manifest()
  expect_error(analyze_archives(c(dir, dir), root = nbh_root), "given twice .* or its runs would count twice",
               class = "nbh_input_error")
  expect_error(analyze_archives(c(dir, paste0(dir, "/")), root = nbh_root), "given twice", class = "nbh_input_error")
  expect_error(analyze_archives(c(dir, copy_to(dir)), root = nbh_root),
               "are the same archive \\(identical MANIFEST.sha256\\)", class = "nbh_input_error")
})

# Two archives of one workspace, as `archive` writes them: runs.csv and
# each attempt's record (attempts/RUN.aN.json); ATTEMPTS: run id -> the
# attempts the archive holds.
workspace_archive <- function(attempts, submitted = "2026-11-28T10:00:00Z") {
  dir <- tempfile("archive-")
  dir.create(file.path(dir, "attempts"), recursive = TRUE)
  fwrite(data.table(run_id = names(attempts), library = "openmpi"), file.path(dir, "runs.csv"))
  for (run in names(attempts)) for (a in attempts[[run]]) {
    writeLines(jsonlite::toJSON(list(run_id = run, attempt = a, scheduler = "local", submitted = submitted,
                                     prefix = sprintf("/work/demo/results/%s.a%d", run, a)), auto_unbox = TRUE),
               file.path(dir, "attempts", sprintf("%s.a%d.json", run, a)))
  }
  dir
}

test_that("archives that hold the same launch are refused in one line naming the one to analyse", {
  first <- workspace_archive(list("1x4-default-r001" = 1L, "1x4-default-r002" = 1L))
  again <- workspace_archive(list("1x4-default-r001" = 1L, "1x4-default-r002" = 1L))
  expect_error(check_distinct_archives(c(first, again)),
               paste0("^", first, " and ", again, " hold the same launch \\(run 1x4-default-r001 attempt 1 and 1 more\\): ",
                      "archives of one workspace, whose runs would count twice; ", again, " holds every run of ",
                      first, ": analyse it alone$"), class = "nbh_input_error")
  resumed <- workspace_archive(list("1x4-default-r001" = 1:2, "1x4-default-r002" = 1L))
  expect_error(check_distinct_archives(c(resumed, first)),
               paste0("\\(run 1x4-default-r001 attempt 1 and 1 more\\).*; ", resumed, " holds every run of ", first),
               class = "nbh_input_error")
  other <- workspace_archive(list("1x4-default-r001" = 1L, "1x4-default-r003" = 1L))
  expect_error(check_distinct_archives(c(first, other)), "\\(run 1x4-default-r001 attempt 1\\).*; analyse them apart$",
               class = "nbh_input_error")
  # The same workspace generated again: new launches (submitted later), analysed together.
  regenerated <- workspace_archive(list("1x4-default-r001" = 1L, "1x4-default-r002" = 1L),
                                   submitted = "2026-11-28T11:00:00Z")
  expect_silent(check_distinct_archives(c(first, regenerated)))
})

test_that("runs without attempt records are the same launch when their results are the same", {
  dir <- archive_with_manifest()
  again <- copy_to(dir)
  write("# made again", file.path(again, "MANIFEST.sha256"), append = TRUE)  # not a copy: another manifest
  expect_error(check_distinct_archives(c(dir, again)), "hold the same launch \\(run 1x4-default-r001 and 7 more\\)",
               class = "nbh_input_error")
  results <- file.path(again, "results", "1x4-default-r001.results.csv")
  lines <- readLines(results)
  sums <- readLines(file.path(again, "MANIFEST.sha256"))
  for (run in sprintf("1x4-default-r%03d", 1:4)) {
    file <- sprintf("results/%s.results.csv", run)
    sums <- sub(paste0("^[0-9a-f]{64}(  ", file, ")$"), paste0(strrep("0", 64), "\\1"), sums)
  }
  writeLines(sums, file.path(again, "MANIFEST.sha256"))
  expect_error(check_distinct_archives(c(dir, again)), "hold the same launch \\(run 2x4-default-r001 and 3 more\\)",
               class = "nbh_input_error")
})

test_that("files that differ from the manifest are a warning naming them, and the report says so", {
  dir <- archive_with_manifest()
  expect_equal(verify_manifest(dir), sprintf("intact (%d files match MANIFEST.sha256)",
                                             length(readLines(file.path(dir, "MANIFEST.sha256")))))
  changed <- file.path(dir, "results", "1x4-default-r001.results.csv")
  cat("1,0,0.5\n", file = changed, append = TRUE)
  w <- warnings_of(result <- verify_manifest(dir))
  expect_match(w, "1 file\\(s\\) do not match MANIFEST.sha256 \\(results/1x4-default-r001.results.csv\\); the archive changed after archiving")
  expect_match(result, "^1 of [0-9]+ files do not match MANIFEST.sha256: results/1x4-default-r001.results.csv$")
  unlink(file.path(dir, "MANIFEST.sha256"))
  expect_equal(verify_manifest(dir), "no MANIFEST.sha256: not verified")
})

test_that("runs archived as damaged are left out, with a warning", {
  dir <- planted_archive(nrun = 4L)
  runs <- fread(file.path(dir, "runs.csv"))
  runs[run_id == "1x4-default-r002", state := "damaged"]
  fwrite(runs, file.path(dir, "runs.csv"))
  w <- warnings_of(result <- analyze_archives(dir, root = nbh_root))
  expect_true(any(grepl("run\\(s\\) 1x4-default-r002 were archived as damaged .* left out", w)))
  expect_false(any(grepl("not in runs.csv", w)))
  expect_false("1x4-default-r002" %in% result$frame$runs$run_id)
})

test_that("nothing left to assess is an error, not an empty report", {
  dir <- planted_archive(nrun = 4L)
  ex <- fread(file.path(dir, "experiments.csv"), colClasses = "character", na.strings = "")
  ex[, nrep := "21"]
  fwrite(ex, file.path(dir, "experiments.csv"), na = "")
  expect_error(suppressWarnings(analyze_archives(dir, root = nbh_root)),
               "nothing to assess: no measurement of .* is left after the checks", class = "nbh_input_error")
  runs <- fread(file.path(dir, "runs.csv"))
  fwrite(runs[, state := "damaged"], file.path(dir, "runs.csv"))
  expect_error(suppressWarnings(analyze_archives(dir, root = nbh_root)),
               "nothing to assess: every run of .* is left out", class = "nbh_input_error")
})

test_that("an assessment with a NUL byte is refused at its line", {
  f <- tempfile(fileext = ".conf")
  writeBin(c(charToRaw("[s]\nparameter = op\nvaried = msize\nGL4: a <= b"), as.raw(0L), charToRaw("\n")), f)
  expect_error(parse_assessment(f), paste0(f, ":4: a NUL byte \\(0x00\\): not a text file"), fixed = FALSE,
               class = "nbh_input_error")
})

test_that("an analysis replaces an earlier one whole, and a failed one leaves the directory as it was", {
  out <- file.path(tempfile("analysis-"), "out")
  with_output_directory(out, function(dir) write_text_file("first", file.path(dir, "report.md")))
  expect_equal(readLines(file.path(out, "report.md")), "first")
  expect_error(with_output_directory(out, function(dir) {
    write_text_file("second", file.path(dir, "report.md"))
    output_error(file.path(dir, "summary.csv"), ": No space left on device")
  }), paste0("^", out, "/summary.csv: No space left on device; ", out, " was left as it was$"),
  class = "nbh_output_error")
  expect_equal(readLines(file.path(out, "report.md")), "first")
  expect_equal(list.files(dirname(out), all.files = TRUE, no.. = TRUE), "out")
  with_output_directory(out, function(dir) write_text_file("third", file.path(dir, "summary.csv")))
  expect_equal(sort(list.files(out, all.files = TRUE, no.. = TRUE)), c(".nbhbench-analysis", "summary.csv"))
  other <- tempfile("mine-")
  dir.create(other)
  writeLines("x", file.path(other, "notes.txt"))
  expect_error(with_output_directory(other, function(dir) NULL), "is not an earlier nbhbench analysis",
               class = "nbh_foreign_out_error")
})

test_that("replacing an analysis leaves one at its directory at every moment, killed or not", {
  out <- file.path(tempfile("analysis-"), "out")
  with_output_directory(out, function(dir) write_text_file("first", file.path(dir, "report.md")))
  # A process killed right after its first rename of the two: here a
  # file.rename that stops (as a kill would) once it has renamed.
  assign("file.rename", function(from, to) {
    base::file.rename(from, to)
    stop("killed")
  }, envir = globalenv())
  on.exit(rm("file.rename", envir = globalenv()))
  try(with_output_directory(out, function(dir) write_text_file("second", file.path(dir, "report.md"))),
      silent = TRUE)
  expect_equal(readLines(file.path(out, "report.md")), "second")
  expect_equal(list.files(dirname(out), all.files = TRUE, no.. = TRUE), "out")
})

test_that("a plot or table cut short is found, though the device said nothing", {
  png <- tempfile(fileext = ".png")
  grDevices::png(png, type = "cairo")
  plot(1:3)
  grDevices::dev.off()
  expect_silent(check_plot_file(png))
  bytes <- readBin(png, "raw", file.size(png))
  writeBin(bytes[seq_len(length(bytes) - 100L)], png)
  expect_error(check_plot_file(png), "a plot cut short", class = "nbh_output_error")
  pdf <- tempfile(fileext = ".pdf")
  writeBin(charToRaw("%PDF-1.5\n1 0 obj"), pdf)
  expect_error(check_plot_file(pdf), "a plot cut short", class = "nbh_output_error")
  csv <- tempfile(fileext = ".csv")
  expect_silent(write_table_file(data.table(a = 1:3, b = c("x", "y", "z")), csv))
  expect_equal(readLines(csv), c("a,b", "1,x", "2,y", "3,z"))
  expect_silent(write_table_file(data.table(), csv))
})
