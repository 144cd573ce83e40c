conf <- function(...) {
  f <- tempfile(fileext = ".conf")
  writeLines(c(...), f, useBytes = TRUE)
  f
}
tags <- c("GL4", "GL6", "GL9", "GL11", "P2P")

test_that("sets, tags, sides with several parameters, both relation spellings", {
  f <- conf("# comment", "[collectives]   # set name is free", "parameter = op", "varied = msize",
            "GL4: neighbor_allgather <= neighbor_alltoall", "", "[graph]", "parameter = topology",
            "varied = msize", "GL9: topology=cart \u2aaf topology=vneum, radius=1,order=FMAJ", "[orders]",
            "varied = msize", "parameter = order", "FMAJ ~ RAND", "LMAJ \u2248 RAND")
  g <- parse_assessment(f, tags)
  expect_length(g, 4L)
  expect_equal(vapply(g, `[[`, "", "set"), c("collectives", "graph", "orders", "orders"))
  expect_equal(vapply(g, `[[`, "", "tag"), c("GL4", "GL9", NA, NA))
  expect_equal(vapply(g, `[[`, "", "relation"), c("<=", "<=", "~", "~"))
  expect_equal(g[[1]]$a, c(op = "neighbor_allgather"))
  expect_equal(g[[1]]$text, "neighbor_allgather <= neighbor_alltoall")
  expect_equal(g[[2]]$b, c(topology = "vneum", radius = "1", order = "FMAJ"))
  expect_equal(g[[3]]$parameter, "order")
  expect_equal(g[[3]]$varied, "msize")
  expect_equal(g[[4]]$where, paste0(f, ":15"))
})

test_that("a chain a <= b <= c is two guidelines", {
  g <- parse_assessment(conf("[v]", "parameter = op", "varied = msize",
                             "GL6: neighbor_alltoall <= neighbor_alltoallv <= neighbor_alltoallw"), tags)
  expect_equal(vapply(g, `[[`, "", "text"), c("neighbor_alltoall <= neighbor_alltoallv",
                                                "neighbor_alltoallv <= neighbor_alltoallw"))
  expect_equal(g[[2]]$a, c(op = "neighbor_alltoallv"))
})

test_that("malformed files are errors naming file and line", {
  expect_error(parse_assessment(conf("x <= y"), tags), ":1: 'x <= y' before the first \\[set\\]",
               class = "nbh_input_error")
  expect_error(parse_assessment(conf("[s]", "varied = msize", "x <= y"), tags), ":1: set \\[s\\] has no 'parameter",
               class = "nbh_input_error")
  expect_error(parse_assessment(conf("[s]", "parameter = op", "varied = op", "x <= y"), tags),
               "cannot be the varied parameter", class = "nbh_input_error")
  expect_error(parse_assessment(conf("[s]", "parameter = op", "varied = msize", "colour = red"), tags),
               ":4: unknown setting 'colour'", class = "nbh_input_error")
  expect_error(parse_assessment(conf("[s]", "parameter = op", "varied = msize", "GL99: x <= y"), tags),
               ":4: unknown guideline tag 'GL99'", class = "nbh_input_error")
  expect_error(parse_assessment(conf("[s]", "parameter = op", "varied = msize", "x <= "), tags),
               ":4: .*a guideline is SIDE <= SIDE", class = "nbh_input_error")
  expect_error(parse_assessment(conf("[s]", "parameter = op", "varied = msize", "x,op=y <= z"), tags),
               "fixes op twice", class = "nbh_input_error")
  expect_error(parse_assessment(conf("[s]", "parameter = op", "varied = msize"), tags), "has no guidelines",
               class = "nbh_input_error")
  expect_error(parse_assessment(conf("# nothing"), tags), "has no guidelines", class = "nbh_input_error")
  expect_error(parse_assessment("/no/such/file", tags), "does not exist", class = "nbh_input_error")
})
