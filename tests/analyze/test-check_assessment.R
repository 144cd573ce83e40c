params <- data.table(name = c("library", "op", "msize", "order"), type = c("word", "word", "integer", "word"))
cells <- make_cells(library = "lib", op = c("a", "a", "b", "b"), msize = c(256L, 512L, 256L, 512L), order = NA_character_)
g <- function(a, b, parameter = "op", varied = "msize") {
  list(list(a = a, b = b, parameter = parameter, varied = varied, where = "x.conf:3", text = "t"))
}

test_that("levels become typed values", {
  out <- check_assessment(g(c(op = "a", msize = "256"), c(op = "b")), cells, params)
  expect_identical(out[[1]]$a, list(op = "a", msize = 256L))
  expect_identical(out[[1]]$b, list(op = "b"))
})

test_that("an unknown parameter is an error naming it", {
  expect_error(check_assessment(g(c(colour = "a"), c(op = "b")), cells, params),
               "x.conf:3: 'colour' is not a parameter of the archives", class = "nbh_input_error")
  expect_error(check_assessment(g(c(op = "a"), c(op = "b"), parameter = "opp"), cells, params),
               "guideline parameter 'opp' is not a parameter", class = "nbh_input_error")
  expect_error(check_assessment(g(c(op = "a"), c(op = "b"), varied = "size"), cells, params),
               "varied parameter 'size' is not a parameter", class = "nbh_input_error")
})

test_that("an unknown level is an error naming it and the parameter", {
  expect_error(check_assessment(g(c(op = "a"), c(op = "c")), cells, params),
               "x.conf:3: level 'c' of parameter op is not in the archives \\(levels: a, b\\)",
               class = "nbh_input_error")
  expect_error(check_assessment(g(c(op = "a", msize = "1024"), c(op = "b")), cells, params),
               "level '1024' of parameter msize", class = "nbh_input_error")
  expect_error(check_assessment(g(c(op = "a", msize = "big"), c(op = "b")), cells, params),
               "level 'big' of parameter msize", class = "nbh_input_error")
  expect_error(check_assessment(g(c(order = "FMAJ"), c(op = "b")), cells, params),
               "level 'FMAJ' of parameter order", class = "nbh_input_error")
})
