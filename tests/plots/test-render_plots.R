archive <- planted_archive()
result <- analyze_archives(archive, root = nbh_root)
tt <- test_table(result)
vt <- violation_table(tt)
groups <- unique(vt[, .(guideline_no, group)])
od <- overview_data(tt, groups, result$params$name)
fd <- focus_data(result, vt[computed == FALSE][1:2])

# The bytes of a PDF less its creation date, which differs between two drawings.
pdf_content <- function(file) {
  text <- readBin(file, "raw", file.size(file))
  text[text == as.raw(0L)] <- as.raw(1L)
  sub("/CreationDate \\([^)]*\\)", "", rawToChar(text), useBytes = TRUE)
}

test_that("a plot built once and drawn on each device has ggsave's pixels and PDF", {
  for (kind in list(list(od, overview_plot), list(fd, focus_plot))) {
    pd <- kind[[1]]
    draw <- kind[[2]]
    dir <- tempfile("plots-")
    out <- render_plots(pd, draw, dir, formats = plot_formats(pdf = TRUE))
    for (i in seq_len(nrow(pd$plots))) {
      this <- pd$plots[i]
      p <- fit_labels(draw(this, pd$data[plot == this$plot]), 8)
      png <- tempfile(fileext = ".png")
      pdf <- tempfile(fileext = ".pdf")
      suppressMessages({
        ggsave(png, p, width = 8, height = 5, dpi = 110, type = "cairo")
        ggsave(pdf, p, width = 8, height = 5, device = cairo_pdf)
      })
      ours <- file.path(dir, "plots", paste0(this$file, c(".png", ".pdf")))
      expect_identical(readBin(ours[1], "raw", 1e7), readBin(png, "raw", 1e7), label = this$file)
      expect_identical(pdf_content(ours[2]), pdf_content(pdf), label = this$file)
    }
    expect_equal(out$png, file.path("plots", paste0(pd$plots$file, ".png")))
  }
})

test_that("the cells that draw nothing are dropped, and only they", {
  p <- overview_plot(od$plots[1], od$data[plot == od$plots$plot[1]])
  table <- ggplotGrob(p)
  kept <- drawn_cells(table)
  zero <- vapply(table$grobs, inherits, TRUE, "zeroGrob")
  expect_true(any(zero))
  expect_equal(length(kept$grobs), sum(!zero))
  expect_equal(kept$layout, table$layout[!zero, ])
})

test_that("PNG only unless PDF is asked for", {
  dir <- tempfile("plots-")
  render_plots(od, overview_plot, dir)
  expect_setequal(list.files(file.path(dir, "plots")), paste0(od$plots$file, ".png"))
  expect_equal(plot_formats(), "png")
  expect_equal(plot_formats(pdf = TRUE), c("png", "pdf"))
})

test_that("all kinds in one pass: each set gets its own plots back, in its own order", {
  dir <- tempfile("plots-")
  drawn <- render_plot_sets(list(focus = plot_set(fd, focus_plot), overview = plot_set(od, overview_plot),
                                 none = plot_set(overview_data(tt, groups[0], result$params$name), overview_plot)),
                            dir)
  expect_equal(names(drawn), c("focus", "overview", "none"))
  expect_equal(drawn$focus$file, fd$plots$file)
  expect_equal(drawn$overview$file, od$plots$file)
  expect_equal(nrow(drawn$none), 0L)
  expect_true(all(drawn$focus$seconds > 0) && all(drawn$overview$seconds > 0))
  expect_true(all(file.exists(file.path(dir, c(drawn$focus$png, drawn$overview$png)))))
})

test_that("the progress line counts the plots of every worker once and names the slowest", {
  withr::local_envvar(NBH_ANALYZE_CORES = "2")
  log <- tempfile()
  files <- NULL
  render_plot_sets(list(overview = plot_set(od, overview_plot), focus = plot_set(fd, focus_plot)), tempfile("plots-"),
                   progress = function(f) {
                     files <<- f
                     plot_progress(f, out = log, terminal = TRUE)
                   })
  n <- length(files)
  lines <- strsplit(readChar(log, file.size(log)), "\r\033[K", fixed = TRUE)[[1]][-1]
  expect_length(lines, n)
  done <- as.integer(sub("^nbhbench: plots: ([0-9]+) of .*", "\\1", lines))
  expect_setequal(done, seq_len(n))
  expect_true(all(grepl(sprintf(" of %d drawn in [0-9.]+ s, slowest so far [0-9.]+ s \\((%s)\\)", n,
                                paste(files, collapse = "|")), lines)))
  last <- lines[done == n]
  expect_match(last, "\n$")
  expect_false(any(grepl("\n", lines[done != n])))
})

test_that("the progress line names the slowest so far, and says nothing where stderr is no terminal", {
  log <- tempfile()
  shown <- plot_progress(c("a", "b", "c"), out = log, terminal = TRUE)
  shown(1L, 0.5)
  shown(3L, 2.0)
  shown(2L, 1.0)
  lines <- strsplit(readChar(log, file.size(log)), "\r\033[K", fixed = TRUE)[[1]][-1]
  expect_match(lines[1], "^nbhbench: plots: 1 of 3 drawn in [0-9.]+ s, slowest so far 0.5 s \\(a\\)$")
  expect_match(lines[2], "2 of 3 .* slowest so far 2.0 s \\(c\\)$")
  expect_match(lines[3], "3 of 3 .* slowest so far 2.0 s \\(c\\)\n$")
  quiet <- tempfile()
  plot_progress(c("a"), out = quiet, terminal = FALSE)(1L, 1)
  expect_false(file.exists(quiet))
})
