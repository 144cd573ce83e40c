# The datatype guidelines DT1-DT4 and the layouts' characterization on a
# synthetic archive with known answers: pingpong on 2 processes, contiguous
# data, tiled Variant 1 (A = 2: unit 2, stride 4) and block Variant 2
# (A = 10: unit 10, strides 20 and 40), at two message sizes. Planted:
#   every tiled cell 3 times contiguous data, struct-described ones twice more
#   block packed by the library 1.5 times block packed by MPI_Pack or by hand
# So DT3 is violated by tiled's struct description only, DT2 and DT4 by
# block only, DT1 nowhere; tiled is 3 (struct 6) times contiguous data and
# block 1.5 times.

datatype_experiments <- function() {
  base <- data.table(topology = "cart", constructor = "cart_create", ndim = 2L, nfin = 0L, radius = NA_integer_,
                     order = NA_character_, reorder = 0L, datatype = "int", nrep = 12L, work_us = 0,
                     work_factor = 0, graph = NA_character_, weights = NA_integer_)
  cells <- rbind(
    data.table(layout = "contiguous", type_constructor = c("basic", "basic", "basic", "contiguous"),
               packing = c("datatype", "mpi_pack", "manual", "datatype"), unit = NA_integer_, unit2 = NA_integer_,
               stride = NA_integer_, stride2 = NA_integer_),
    data.table(layout = "tiled", type_constructor = c("contiguous_resized", "contiguous_resized", "contiguous_resized",
                                                      "struct", "vector", "contiguous"),
               packing = c("datatype", "mpi_pack", "manual", "datatype", "datatype", "datatype"), unit = 2L,
               unit2 = NA_integer_, stride = 4L, stride2 = NA_integer_),
    data.table(layout = "block", type_constructor = "indexed_block", packing = c("datatype", "mpi_pack", "manual"),
               unit = 10L, unit2 = NA_integer_, stride = 20L, stride2 = 40L))
  x <- CJ(msize = c(3200L, 6400L), row = seq_len(nrow(cells)))
  x <- cbind(op = "pingpong", base[rep(1L, nrow(x))], msize = x$msize, cells[x$row])
  x[, `:=`(id = .I, halo_n = NA_integer_, matrix_n = NA_integer_)]
  setcolorder(x, c("id", "op", "topology", "constructor", "ndim", "nfin", "radius", "order", "reorder", "datatype",
                   "msize", "nrep", "work_us", "work_factor", "graph", "weights"))
  x[]
}

datatype_assessment <- c(
  "[DT1]", "parameter = type_constructor", "varied = msize",
  "DT1: layout=contiguous,basic ~ layout=contiguous,contiguous",
  "DT1: layout=tiled,contiguous_resized ~ layout=tiled,contiguous", "",
  "[DT2]", "parameter = packing", "varied = msize", "DT2: datatype <= mpi_pack", "",
  "[DT3]", "parameter = type_constructor", "varied = msize",
  "DT3: layout=tiled,struct <= layout=tiled,contiguous_resized",
  "DT3: layout=tiled,vector <= layout=tiled,contiguous_resized", "",
  "[DT4]", "parameter = packing", "varied = msize", "DT4: datatype <= manual")

datatype_archive <- function() {
  dir <- file.path(tempfile("datatypes-"), "datatypes")
  planted <- list(list(where = list(layout = "tiled"), factor = 3),
                  list(where = list(type_constructor = "struct"), factor = 2),
                  list(where = list(layout = "block", packing = "datatype"), factor = 1.5))
  write_synthetic_archive(dir, datatype_experiments(), deployments = "1x2", nrun = 8L, planted = planted,
                          assessment = datatype_assessment, campaign = "datatypes", rep_sd = 0.01, outlier_rate = 0)
}

archive <- datatype_archive()
result <- analyze_archives(archive, root = nbh_root)

test_that("DT1-DT4: exactly the planted guidelines are violated", {
  tt <- test_table(result)
  expect_setequal(unique(tt$tag), c("DT1", "DT2", "DT3", "DT4"))
  violated <- tt[violated == TRUE]
  expect_equal(sort(unique(violated$tag)), c("DT2", "DT3", "DT4"))
  expect_equal(violated[tag == "DT3", unique(a_params)], "type_constructor=struct")
  expect_equal(violated[tag == "DT3", unique(layout)], "tiled")
  expect_equal(violated[tag == "DT3", ratio], c(2, 2), tolerance = 0.03)
  expect_equal(violated[tag %in% c("DT2", "DT4"), unique(layout)], "block")
  expect_equal(violated[tag %in% c("DT2", "DT4"), ratio], rep(1.5, 4), tolerance = 0.03)
  expect_false(any(tt[tag == "DT1", violated]))
  summary <- summary_table(result, tt)
  expect_setequal(summary$tag, c("DT1", "DT2", "DT3", "DT4"))
})

test_that("the layouts against contiguous data of the same bytes: ratio, interval, A and Variant", {
  x <- result$characterization
  expect_equal(nrow(x), 2L * 5L)   # tiled by 3 descriptions, block, tiled's DT1 contiguous type; two sizes
  tiled <- x[layout == "tiled" & type_constructor == "contiguous_resized"]
  expect_equal(tiled$ratio, c(3, 3), tolerance = 0.03)
  expect_equal(unique(tiled[, .(A, variant)]), data.table(A = 2, variant = 1L))
  expect_true(all(tiled$ratio_ci_low < 3 & tiled$ratio_ci_high > 3 & tiled$ratio_ci_high < 3.2))
  expect_equal(x[type_constructor == "struct", ratio], c(6, 6), tolerance = 0.03)
  block <- x[layout == "block"]
  expect_equal(block$ratio, c(1.5, 1.5), tolerance = 0.03)
  expect_equal(unique(block[, .(A, variant)]), data.table(A = 10, variant = 2L))
  expect_equal(x$runs_layout, rep(8L, 10L))
  expect_equal(layout_variant(data.table(layout = c("bucket", "alternating", "tiled"), unit = c(9L, 5L, 4L),
                                         unit2 = c(11L, 15L, NA), stride = c(12L, 20L, 7L),
                                         stride2 = c(NA, 40L, NA))),
               list(A = c(10, 10, 4), variant = c(1L, 2L, NA)))
})

test_that("characterization.csv, a layout plot per op and the report section are written", {
  out <- tempfile("analysis-")
  write_outputs(result, list(out = out, plots = TRUE))
  written <- fread(file.path(out, "characterization.csv"))
  expect_equal(nrow(written), 10L)
  expect_true(all(c("layout", "A", "variant", "ratio", "ratio_ci_low", "ratio_ci_high") %in% names(written)))
  expect_true(file.exists(file.path(out, "plots", "layouts-01.png")))
  expect_false(file.exists(file.path(out, "plots", "layouts-02.png")))   # one op: one plot
  report <- readLines(file.path(out, "report.md"))
  expect_true(any(grepl("^## Derived datatypes: layouts against contiguous data", report)))
  expect_true(any(grepl("layouts-01.png", report, fixed = TRUE)))
})

test_that("an archive without layouts (made before them) has no characterization", {
  plain <- analyze_archives(planted_archive(), root = nbh_root)
  expect_equal(nrow(plain$characterization), 0L)
})

test_that("an archive made before layouts moved contiguous data: its cells meet today's in a regression", {
  old <- file.path(tempfile("before-layouts-"), "openmpi")
  experiments <- datatype_experiments()[layout == "contiguous" & type_constructor == "basic" & packing == "datatype"]
  write_synthetic_archive(old, experiments[, !c("layout", "type_constructor", "packing", "unit", "unit2", "stride",
                                                 "stride2", "halo_n", "matrix_n")],
                          deployments = "1x2", nrun = 8L, inputs = FALSE, assessment = datatype_assessment[1:4],
                          campaign = "datatypes")
  read <- read_archive(old, read_registry(nbh_root))$experiments
  expect_equal(unique(read[, .(layout, type_constructor, packing)]),
               data.table(layout = "contiguous", type_constructor = "basic", packing = "datatype"))
  expect_true(all(is.na(read$unit)))
  r <- regress_archives(result, old)
  matched <- r$table[!verdict %in% c("new only", "baseline only")]
  expect_equal(nrow(matched), nrow(experiments))
  expect_true(all(matched$layout == "contiguous"))
})
