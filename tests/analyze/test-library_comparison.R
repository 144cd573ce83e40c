# Library comparison: two archives, one per library, analysed together with
# the guideline parameter `library`. The archives differ in what a library
# leaves behind (experiment ids, library_version, hosts), which must not keep
# their cells apart; two planted differences:
#   M  neighbor_alltoall cart nfin=0 reorder=0 msize=4096: mpich x1.3
#   O  neighbor_allgather vneum FMAJ nfin=2 reorder=1 msize=256: openmpi x1.3
M <- list(op = "neighbor_alltoall", topology = "cart", nfin = 0, reorder = 0, msize = 4096)
O <- list(op = "neighbor_allgather", topology = "vneum", order = "FMAJ", nfin = 2, reorder = 1, msize = 256)
experiments <- synthetic_experiments("small", nrep = 20L)
one_library <- function(library, planted, experiments, seed) {
  dir <- file.path(tempfile("lib-"), library)
  write_synthetic_archive(dir, experiments, deployments = "1x4", nrun = 8L, library = library, planted = planted,
                          seed = seed, inputs = FALSE)
  dir
}
openmpi <- one_library("openmpi", list(list(where = O, factor = 1.3)), experiments, 21L)
mpich <- one_library("mpich", list(list(where = M, factor = 1.3)),
                     copy(experiments)[, id := rev(id) + 1000L], 22L)
libraries <- assessment_file("[libraries]", "parameter = library", "varied = msize",
                             "openmpi ~ mpich", "openmpi <= mpich", "mpich <= openmpi",
                             "[ops]", "parameter = op", "varied = msize", "GL4: neighbor_allgather <= neighbor_alltoall")
cells_of <- function(rows) rows[, .(op, topology, order, nfin, reorder, msize, slower)]

test_that("openmpi ~ mpich: the planted differences in both directions, and nothing else", {
  w <- warnings_of(result <- analyze_archives(c(openmpi, mpich), libraries, root = nbh_root))
  expect_length(w, 0L)
  tt <- test_table(result)
  expect_equal(tt[, .N, keyby = guideline_no]$N, c(96L, 96L, 96L, 48L * 2L))   # GL4: 48 tests per library
  v <- tt[violated == TRUE]
  expect_equal(cells_of(v[guideline_no == 1L][order(slower)]),
               data.table(op = c(O$op, M$op), topology = c(O$topology, M$topology), order = c("FMAJ", NA),
                          nfin = c(2L, 0L), reorder = c(1L, 0L), msize = c(256L, 4096L), slower = c("a", "b")))
  expect_equal(cells_of(v[guideline_no == 2L]), cells_of(v[guideline_no == 1L & slower == "a"]))
  expect_equal(cells_of(v[guideline_no == 3L])[, !"slower"], cells_of(v[guideline_no == 1L & slower == "b"])[, !"slower"])
  expect_equal(v[guideline_no %in% 1:3, ratio], rep(1.3, 4L), tolerance = 0.02)
  # The compared parameter is left out of the context, the others stay.
  expect_true(all(is.na(tt[guideline_no <= 3L, library])))
  expect_equal(unique(tt[guideline_no <= 3L, .(param_set, deployment, a_params, b_params)][order(a_params)]),
               data.table(param_set = "default", deployment = "1x4", a_params = c("library=mpich", "library=openmpi"),
                          b_params = c("library=openmpi", "library=mpich")))
  # Within each library GL4 sees its own planted cell only: O is allgather (a side) under openmpi.
  expect_equal(v[guideline_no == 4L, .(library, msize)], data.table(library = "openmpi", msize = 256L))
  s <- summary_table(result, tt)
  expect_equal(s[guideline_no == 1L, .(library, param_set, deployment, n_vio_tests, n_tests)],
               data.table(library = NA_character_, param_set = "default", deployment = "1x4", n_vio_tests = 2L,
                          n_tests = 96L))
})

test_that("the report names the library comparison without an empty library", {
  result <- analyze_archives(c(openmpi, mpich), libraries, root = nbh_root)
  tt <- test_table(result)
  rows <- tt[guideline_no == 1L & violated == TRUE]
  expect_match(plot_caption(rows, result$params$name), "^default, 1x4 \\(4 processes\\); op=")
  expect_equal(context_text(rows), c("default 1x4", "default 1x4"))
  expect_equal(context_text(tt[guideline_no == 4L][1]), "mpich default 1x4")
})
