archive <- planted_archive()

analysed <- function(dir = tempfile("out-"), plots = TRUE, max_plots = NULL, ...) {
  result <- analyze_archives(archive, root = nbh_root, ...)
  out <- write_outputs(result, list(out = dir, plots = plots, max_plots = max_plots, created = "now",
                                    version = "test"), warnings = "a warning")
  list(dir = dir, out = out)
}
a <- analysed()

test_that("summary.csv: one row per guideline and deployment, with the counts", {
  s <- fread(file.path(a$dir, "summary.csv"), na.strings = "")
  expect_equal(names(s), c("set", "tag", "guideline", "library", "param_set", "deployment", "nprocs",
                           "n_vio_tests", "n_tests", "n_vio_groups", "n_groups", "n_holds_tests", "n_open_tests",
                           "min_p_value", "min_p_adjusted", "smallest_p", "power"))
  expect_equal(s$n_vio_tests + s$n_holds_tests + s$n_open_tests, s$n_tests)
  expect_equal(unique(s$power), "ok")   # 8 runs a side: p can reach 1 / C(16, 8)
  expect_equal(unique(s$smallest_p), 1 / choose(16, 8))
  expect_equal(s$guideline[1], "neighbor_allgather <= neighbor_alltoall")
  expect_equal(s[tag == "GL4" & deployment == "1x4", .(n_vio_tests, n_tests, n_vio_groups, n_groups)],
               data.table(n_vio_tests = 1L, n_tests = 48L, n_vio_groups = 1L, n_groups = 12L))
})

test_that("violations.csv: one row per violation with every parameter, ratio, p and runs", {
  v <- fread(file.path(a$dir, "violations.csv"), na.strings = "")
  expect_equal(nrow(v), 3L)
  for (col in c("guideline", "library", "nprocs", "op", "topology", "order", "msize", "a_params", "b_params",
                "ratio", "p_value", "runs_a", "runs_b", "median_a_us", "median_b_us", "overview_plot", "focus_plot")) {
    expect_true(col %in% names(v), info = col)
  }
  expect_equal(v$msize, c(1024L, 1024L, 16384L))
  expect_equal(v$runs_a, rep(8L, 3L))
  expect_true(all(file.exists(file.path(a$dir, v$focus_plot))))
  expect_equal(nrow(fread(file.path(a$dir, "tests.csv"))), 320L)
})

test_that("report.md has the study's table, the violations, plots with captions, provenance and warnings", {
  md <- readLines(file.path(a$dir, "report.md"))
  expect_true(any(grepl("| GL4: neighbor_allgather <= neighbor_alltoall | 1/48 (1/12) | 0/48 (0/12) |", md, fixed = TRUE)))
  expect_true(any(grepl("**3 of 320 tests violated** (3 of 80 groups)", md, fixed = TRUE)))
  expect_equal(sum(grepl("^!\\[Overview: ", md)), 3L)
  expect_equal(sum(grepl("^!\\[Focus: ", md)), 3L)
  expect_true(any(grepl("campaign: synthetic", md, fixed = TRUE)))
  expect_true(any(grepl("library_version: openmpi 9.9.9 (synthetic)", md, fixed = TRUE)))
  expect_true(any(grepl("^- a warning$", md)))
})

test_that("report.html is self-contained: every image is embedded", {
  html <- paste(readLines(file.path(a$dir, "report.html")), collapse = "\n")
  # the verdict map, 3 overview, 3 focus and 5 closest-call plots
  expect_equal(lengths(regmatches(html, gregexpr("<img src=\"data:image/png;base64,", html, fixed = TRUE))), 12L)
  expect_false(grepl("src=\"plots/", html, fixed = TRUE))
  expect_match(html, "<td>1/48 \\(1/12\\)</td>")
  expect_match(html, "neighbor_allgather &lt;= neighbor_alltoall")
})

test_that("report.html: the verdict map first, then contents linking every section, tables to explore", {
  html <- readLines(file.path(a$dir, "report.html"))
  page <- paste(html, collapse = "\n")
  map <- grep("<figure id=\"verdict-map\">", html)
  first_section <- grep("<h2 ", html)[1]
  contents <- grep("<nav class=\"contents\" id=\"contents\">", html)
  expect_length(map, 1L)
  expect_true(map < contents && contents < first_section)
  expect_match(html[map], "alt=\"Verdict map: 3 of 320 tests violated, [0-9]+ hold, [0-9]+ open, over 4 guidelines")
  # Every heading of level 2 and 3 has a unique id, and the contents link each once, in order.
  ids <- regmatches(page, gregexpr("<h[23] id=\"[^\"]+\"", page))[[1]]
  ids <- sub(".*id=\"([^\"]+)\"", "\\1", ids)
  expect_false(anyDuplicated(ids) > 0)
  expect_true(all(c("verdict", "violations", "closest-calls", "plots", "provenance", "warnings") %in% ids))
  nav <- html[contents:(contents + grep("</nav>", html[contents:length(html)])[1] - 1L)]
  links <- sub(".*href=\"#([^\"]+)\".*", "\\1", grep("href=\"#", nav, value = TRUE))
  expect_equal(links, ids)
  expect_true("gl4-neighbor_allgather--neighbor_alltoall" %in% ids)   # the plots of GL4
  # The tables the page sorts and filters, marked for its script; the script and style inline.
  expect_equal(regmatches(page, gregexpr("data-explore=\"[a-z-]+\"", page))[[1]],
               c("data-explore=\"violations\"", "data-explore=\"closest\""))
  expect_match(page, "<script>\n// report.html's script")
  expect_false(grepl("<script src=|<link |(src|href)=\"(?!data:)[a-z]+:", page, perl = TRUE))
})

test_that("report.md: the verdict map and the contents, linked to the headings' anchors", {
  md <- readLines(file.path(a$dir, "report.md"))
  expect_match(md[grep("^!\\[", md)[1]], "^!\\[Verdict map: 3 of 320 tests violated, .*\\]\\(plots/verdict-map.png\\)$")
  expect_true(grep("^\\*\\*Contents\\*\\*$", md) < grep("^## Verdict$", md))
  expect_true("- [Verdict](#verdict)" %in% md)
  expect_true("  - [GL4: neighbor_allgather <= neighbor_alltoall](#gl4-neighbor_allgather--neighbor_alltoall)" %in% md)
})

test_that("heading anchors: GitHub's, unique, the same in both files", {
  blocks <- list(heading("Title", 1L), contents(), heading("Violations"), heading("GL4: a <= b", 3L),
                 heading("Violations of `default` and the sets"), heading("Violations"),
                 collapsed("more", list(heading("Violations", 3L))), heading("µs *and* (more)"))
  expect_equal(heading_anchors(blocks), c("title", "violations", "gl4-a--b", "violations-of-default-and-the-sets",
                                          "violations-1", "violations-2", "µs-and-more"))
  entries <- contents_entries(blocks)
  expect_equal(entries$anchor, heading_anchors(blocks)[-1])
  expect_equal(entries$level, c(2L, 3L, 2L, 2L, 3L, 2L))
})

test_that("plots: a PNG of each overview and focus plot; --max-plots and --no-plots", {
  files <- list.files(file.path(a$dir, "plots"))
  expect_equal(sum(grepl("^overview-.*\\.png$", files)), 3L)
  expect_equal(sum(grepl("^focus-.*\\.png$", files)), 3L)
  # Closest calls where a guideline has no violation: GL4 and GL9 in 2x4,
  # GL11 in both deployments, GL12 in 1x4.
  expect_equal(sub("-g[0-9]+\\.png$", "", grep("^closest-.*\\.png$", files, value = TRUE)),
               c("closest-01-GL4", "closest-02-GL9", "closest-03-GL11", "closest-03-GL11", "closest-04-GL12"))
  expect_true("verdict-map.png" %in% files)
  expect_length(files, 12L)
  b <- analysed(max_plots = 1L)   # one of each kind, and the verdict map
  expect_length(list.files(file.path(b$dir, "plots")), 4L)
  expect_true(any(grepl("8 plots left out (--max-plots 1)", readLines(file.path(b$dir, "report.md")), fixed = TRUE)))
  c <- analysed(plots = FALSE)
  expect_length(list.files(file.path(c$dir, "plots")), 0L)
  expect_true(any(grepl("Plots were not drawn", readLines(file.path(c$dir, "report.md")))))
})

test_that("the output directory: an earlier analysis is replaced, anything else is refused", {
  b <- analysed(a$dir, plots = FALSE)    # into the same directory again, without plots
  expect_length(list.files(file.path(a$dir, "plots")), 0L)
  other <- tempfile("other-")
  dir.create(other)
  writeLines("mine", file.path(other, "notes.txt"))
  expect_error(analysed(other), "is not an earlier nbhbench analysis \\(no .nbhbench-analysis\\); nothing there is replaced: choose another --out",
               class = "nbh_foreign_out_error")
  expect_equal(readLines(file.path(other, "notes.txt")), "mine")
})

test_that("with several parameter sets the report says which set removes which violations (SPEC 6)", {
  dir <- file.path(tempfile("tuning-"), "tuning")
  write_synthetic_archive(dir, synthetic_experiments("small", nrep = 20L), deployments = "1x4", nrun = 8L,
                          param_sets = c("default", "tuned"), inputs = FALSE, seed = 9L,
                          planted = list(list(where = list(op = "neighbor_allgather", topology = "cart", nfin = 0,
                                                           reorder = 0, msize = 4096, param_set = "default"),
                                              factor = 1.3)))
  result <- analyze_archives(dir, root = nbh_root)
  tt <- test_table(result)
  expect_equal(tt[violated == TRUE, .N, keyby = .(tag, param_set)],
               data.table(tag = c("GL4", "GL9"), param_set = "default", N = 1L, key = c("tag", "param_set")))
  heal <- tuning_tables(result, tt)$heal
  expect_equal(heal[, .(param_set, status, tag, msize)],
               data.table(param_set = "tuned", status = "removed", tag = c("GL4", "GL9"), msize = 4096L))
  s <- summary_table(result, tt)
  expect_equal(s[tag == "GL4", .(param_set, n_vio_tests)], data.table(param_set = c("default", "tuned"), n_vio_tests = c(1L, 0L)))
  out_dir <- tempfile("out-")
  write_outputs(result, list(out = out_dir, plots = FALSE, created = "now", version = "test"))
  md <- readLines(file.path(out_dir, "report.md"))
  expect_true("## Parameter sets: what heals what" %in% md)
  expect_true(any(grepl("| tuned | openmpi 1x4 | 2 | 2 | 0 | 0 | 0 | 0 | 0 | 1 | 96 |", md, fixed = TRUE)))
  expect_true(any(grepl("| guideline | default 1x4 | tuned 1x4 |", md, fixed = TRUE)))
})

test_that("a report without violations: the closest calls, in a table and in plots", {
  b <- analysed(v_thres = 1.5)
  md <- readLines(file.path(b$dir, "report.md"))
  expect_true(any(grepl("**0 of 320 tests violated** (0 of 80 groups) over 4 guidelines. No test is violated; the closest calls",
                        md, fixed = TRUE)))
  closest <- fread(file.path(b$dir, "closest.csv"), na.strings = "")
  expect_equal(nrow(closest), 8L)                                  # 4 guidelines x 2 deployments
  # The planted cells come first (GL9 and GL4 share P1; the noise decides their order).
  expect_equal(closest[order(-ratio)][1:3, .(tag = sort(tag), deployment = sort(deployment), msize = sort(msize))],
               data.table(tag = c("GL12", "GL4", "GL9"), deployment = c("1x4", "1x4", "2x4"),
                          msize = c(1024L, 1024L, 16384L)))
  expect_lt(closest[order(-ratio)][4, ratio], 1.03)
  expect_equal(closest[tag == "GL12" & deployment == "2x4", short_of], "ratio")
  expect_true(all(file.exists(file.path(b$dir, closest$overview_plot))))
  expect_equal(sum(grepl("^!\\[Closest call \\(not violated\\): ", md)), 8L)
  expect_equal(sum(grepl("^!\\[(Overview|Focus): ", md)), 0L)
  expect_true("## Closest calls" %in% md)
  expect_match(md, "^\\| GL12: reorder=1 <= reorder=0 \\| openmpi default 2x4 \\| .* \\| msize=16384 \\| 1\\.[23][0-9]* \\| 1\\.[0-9]+–1\\.[0-9]+ \\| 7\\.8e-05 \\| .* \\| ratio \\|$",
               all = FALSE)
})

test_that("count_lines (C) counts what R counts: newlines, and whether the file ends in one", {
  by_r <- function(file) {
    bytes <- if (file.exists(file)) readBin(file, "raw", file.size(file)) else raw()
    list(newlines = sum(bytes == as.raw(10L)), last_is_newline = length(bytes) > 0L && bytes[length(bytes)] == as.raw(10L))
  }
  dir <- tempfile("lines-")
  dir.create(dir)
  texts <- list(empty = "", one = "a\n", cut = "a\nb", long = strrep("0123456789abcde\n", 9000),   # 144 000 bytes
                long_cut = paste0(strrep("x\n", 40000), "tail"))
  for (name in names(texts)) {
    file <- file.path(dir, name)
    writeBin(charToRaw(texts[[name]]), file)
    expect_false(is.null(call_native("nbh_count_lines", file)))
    expect_equal(count_lines(file), by_r(file), label = name)
  }
  expect_null(call_native("nbh_count_lines", file.path(dir, "missing")))
  expect_equal(count_lines(file.path(dir, "missing")), list(newlines = 0L, last_is_newline = FALSE))
})
