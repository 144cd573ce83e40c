archive <- planted_archive()
result <- analyze_archives(archive, root = nbh_root)
vt <- violation_table(test_table(result))
# The title cut at the right edge of docs/examples/progress focus-09 and closest-09.
long_title <- "GL14: neighbor_alltoallv_init,work_factor=0 <= neighbor_alltoallv,work_factor=0"
# Text must end inside the plot's right margin (theme_bw: 5.5 pt).
inside <- function(width) width - 5.5 / 72

test_that("a focus plot's long title is wrapped to fit the width it is drawn at", {
  fd <- focus_data(result, vt[1])
  fd$plots[, title := long_title]
  p <- fit_labels(focus_plot(fd$plots[1], fd$data[plot == 1L]), 8)
  edges <- label_right_edges(p, 8)
  expect_named(edges, c("title", "subtitle", "caption"))
  expect_true(all(edges <= inside(8)), info = paste(names(edges), format(edges), collapse = ", "))
  expect_equal(p$labels$title, "GL14: neighbor_alltoallv_init,work_factor=0 <=\nneighbor_alltoallv,work_factor=0")
})

test_that("an overview plot's long title fits too, and so at every width render_plots draws", {
  od <- overview_data(test_table(result), unique(vt[1, .(guideline_no, group)]), result$params$name)
  od$plots[, title := paste(long_title, "and a little more to be sure")]
  for (width in c(5, 6, 8, 10)) {
    edges <- label_right_edges(fit_labels(overview_plot(od$plots[1], od$data[plot == 1L]), width), width)
    expect_true(all(edges <= inside(width)), info = paste(width, "in:", names(edges), format(edges), collapse = ", "))
  }
})

test_that("lines that fit are kept; a word too long for a line is cut after its commas", {
  expect_equal(wrap_lines("short\nlines stay", 20), "short\nlines stay")
  expect_equal(wrap_lines("GL16: a_very_long_name,work_factor=1,radius=2 <= b", 24),
               "GL16: a_very_long_name,\nwork_factor=1,radius=2\n<= b")
  expect_equal(wrap_lines("abcdefghij", 4), "abcd\nefgh\nij")
})
