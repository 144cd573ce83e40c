params <- c("library", "op", "topology", "order", "radius", "msize")
cells <- make_cells(library = "lib", op = "x",
                    topology = c("cart", "cart", "vneum", "vneum", "vneum", "vneum"),
                    order = c(NA, NA, "FMAJ", "FMAJ", "RAND", "RAND"),
                    radius = c(NA, NA, 1L, 1L, 1L, 1L), msize = c(1L, 2L, 1L, 2L, 1L, 2L))

test_that("parameters a side fixes, or that do not apply (NA) to a side, are left out", {
  p <- match_sides(cells, list(topology = "cart"), list(topology = "vneum", order = "FMAJ"), params)
  expect_equal(p$a_cell, c(1L, 2L))
  expect_equal(p$b_cell, c(3L, 4L))      # same msize; order and radius do not apply to cart
})

test_that("a cell with several partners is an error naming the parameter to fix", {
  expect_error(match_sides(cells, list(topology = "cart"), list(topology = "vneum"), params, "GL9"),
               "GL9: cell \\(library=lib, op=x, topology=cart, msize=1\\) matches 2 cells of side b that differ in order; fix it on a side",
               class = "nbh_input_error")
  expect_error(match_sides(cells, list(topology = "vneum"), list(topology = "cart"), params),
               "matches 2 cells of side a that differ in order", class = "nbh_input_error")
})

test_that("every other parameter, library and context included, must be equal", {
  two <- rbind(cells, copy(cells)[, `:=`(library = "other", cell = cell + 6L)])
  p <- match_sides(two, list(order = "FMAJ"), list(order = "RAND"), params)
  expect_equal(p$a_cell, c(3L, 4L, 9L, 10L))
  expect_equal(p$b_cell, c(5L, 6L, 11L, 12L))
  expect_equal(nrow(match_sides(cells, list(msize = 1L), list(msize = 2L), params)), 3L)
})

test_that("sides that share a cell are an error; no common cells give no pairs", {
  expect_error(match_sides(cells, list(msize = 1L), list(topology = "cart"), params), "is on both sides",
               class = "nbh_input_error")
  w <- warnings_of(p <- match_sides(cells, list(order = "FMAJ"), list(topology = "full"), params, "G"))
  expect_equal(w, "G: side b matches no cell of the archives; nothing to test")
  expect_equal(nrow(p), 0L)
  expect_named(p, c("a_cell", "b_cell"))
})

test_that("fixing nprocs or deployment on a side leaves out both (scaling guidelines)", {
  p2 <- c("deployment", "nprocs", "op", "msize")
  cells <- make_cells(deployment = rep(c("1x4", "2x4"), each = 2L), nprocs = rep(c(4L, 8L), each = 2L),
                      op = "x", msize = c(1L, 2L, 1L, 2L))
  p <- match_sides(cells, list(nprocs = 8L), list(nprocs = 4L), p2)
  expect_equal(p$a_cell, 3:4)
  expect_equal(p$b_cell, 1:2)
  expect_equal(nrow(match_sides(cells, list(deployment = "2x4"), list(deployment = "1x4"), p2)), 2L)
})
