# Pairs the cells of the two sides of a guideline (SPEC 5, step 2; docs/
# assessment.md). A cell is one parameter combination in one context
# (library, param_set, deployment, nprocs). Cell a of side `a` and cell b of
# side `b` are compared when they agree on every parameter except those
# that a side fixes and those that do not apply (NA) to a or to b. A cell
# that finds several partners is an error naming the parameters in which
# the partners differ: the assessment must fix them.
#
# cells: data.table(cell, <params>); a, b: named lists parameter -> level.
# deployment (NxP) and nprocs go together: a side that fixes one leaves both
# out. Returns data.table(a_cell, b_cell).

cells_of_side <- function(cells, side) {
  keep <- rep(TRUE, nrow(cells))
  for (name in names(side)) keep <- keep & !is.na(cells[[name]]) & cells[[name]] == side[[name]]
  cells[keep]
}

match_sides <- function(cells, a, b, params, what = "guideline") {
  A <- cells_of_side(cells, a)
  B <- cells_of_side(cells, b)
  fixed <- union(names(a), names(b))
  if (any(c("deployment", "nprocs") %in% fixed)) fixed <- union(fixed, c("deployment", "nprocs"))
  free <- setdiff(params, fixed)
  # Cells with the same parameters not applying are joined in one go. A
  # pattern is the sum of 2^(k - 1) over the free parameters k that are NA.
  bit <- 2^(seq_along(free) - 1L)
  na_pattern <- function(x) {
    code <- numeric(nrow(x))
    for (k in seq_along(free)) code <- code + is.na(x[[free[k]]]) * bit[k]
    code
  }
  A[, pattern := na_pattern(A)]
  B[, pattern := na_pattern(B)]
  pairs <- list()
  for (pa in unique(A$pattern)) {
    for (pb in unique(B$pattern)) {
      not_na <- function(code) (code %/% bit) %% 2 == 0
      key <- free[not_na(pa) & not_na(pb)]
      x <- A[pattern == pa, c("cell", key), with = FALSE]
      y <- B[pattern == pb, c("cell", key), with = FALSE]
      pairs[[length(pairs) + 1L]] <- if (length(key)) {
        x[y, on = key, nomatch = NULL, allow.cartesian = TRUE, .(a_cell = x.cell, b_cell = i.cell)]
      } else {
        CJ(a_cell = x$cell, b_cell = y$cell)
      }
    }
  }
  pairs <- rbindlist(pairs)
  if (!nrow(pairs)) {
    warn_no_pairs(A, B, free, what)
    return(data.table(a_cell = integer(), b_cell = integer()))
  }
  same <- pairs[a_cell == b_cell]
  if (nrow(same)) {
    input_error(what, ": cell ", describe_cell(cells, same$a_cell[1], params), " is on both sides")
  }
  check_unique_partner(pairs, cells, params, "a_cell", "b_cell", what, "b")
  check_unique_partner(pairs, cells, params, "b_cell", "a_cell", what, "a")
  setorder(pairs, a_cell, b_cell)
  pairs[]
}

# Why two sides have no pair: a side without cells, or parameters on which
# the sides never agree.
warn_no_pairs <- function(A, B, free, what) {
  if (!nrow(A) || !nrow(B)) {
    nbh_warning(what, ": side ", if (!nrow(A)) "a" else "b", " matches no cell of the archives; nothing to test")
    return(invisible())
  }
  apart <- free[vapply(free, function(p) {
    x <- na.omit(A[[p]])
    y <- na.omit(B[[p]])
    length(x) && length(y) && !length(intersect(x, y))
  }, logical(1))]
  nbh_warning(what, ": no cell of side a has a partner on side b",
              if (length(apart)) paste0(" (they never agree on ", paste(apart, collapse = ", "), "; fix ",
                                        if (length(apart) == 1L) "it" else "them", " on a side)"),
              "; nothing to test")
}

check_unique_partner <- function(pairs, cells, params, one, other, what, other_side) {
  dup <- pairs[[one]][duplicated(pairs[[one]])]
  if (!length(dup)) return(invisible())
  partners <- cells[cell %in% pairs[get(one) == dup[1], get(other)]]
  differ <- params[vapply(params, function(p) uniqueN(partners[[p]]) > 1L, logical(1))]
  input_error(what, ": cell ", describe_cell(cells, dup[1], params), " matches ", nrow(partners),
              " cells of side ", other_side, " that differ in ", paste(differ, collapse = ", "),
              "; fix ", if (length(differ) == 1L) "it" else "them", " on a side")
}

# "library=openmpi, deployment=1x4, op=..., msize=1024": a cell's parameters
# that apply to it.
describe_cell <- function(cells, id, params) {
  row <- cells[cell == id]
  values <- vapply(params, function(p) as.character(row[[p]]), character(1))
  values <- values[!is.na(values)]
  paste0("(", paste0(names(values), "=", values, collapse = ", "), ")")
}
