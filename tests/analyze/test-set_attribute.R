# set_attribute (analyze/set_attribute.R, analyze/native/set_attribute.c):
# an attribute set in place without data.table's copy of its value.

test_that("set_attribute attaches the value itself, in place; data.table's setattr attaches a copy", {
  skip_if(is.null(native_library()), "the analyzer's C code is not available")
  x <- data.table(a = 1:3)
  before <- address(x)
  v <- data.table(b = runif(10))
  set_attribute(x, "rounds", v)
  expect_identical(address(x), before)
  expect_identical(address(attr(x, "rounds")), address(v))
  setattr(x, "copied", v)
  expect_false(identical(address(attr(x, "copied")), address(v)))
  expect_identical(attr(x, "copied"), v)
  x[, b := 2L]   # still a data.table that := changes in place
  expect_identical(address(x), before)
  expect_error(set_attribute(x, "names", "z"), "'names' is not for this routine")
  expect_error(set_attribute(x, c("p", "q"), 1), "one string")
})
