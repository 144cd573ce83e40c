# Checks the guidelines of an assessment against the cells of the archives:
# every parameter named (guideline parameter, varied parameter, fixed on a
# side) must be a parameter of the analysis, and every level must occur in
# the archives. Converts the side levels to the parameters' types
# (`msize=1024` compares as the integer 1024). Returns the guidelines with
# a and b as typed lists.

check_assessment <- function(guidelines, cells, params) {
  types <- setNames(params$type, params$name)
  known <- function(name, where, what) {
    if (!name %in% params$name) {
      input_error(where, ": ", what, "'", name, "' is not a parameter of the archives (parameters: ",
                  paste(params$name, collapse = ", "), ")")
    }
  }
  typed_side <- function(side, g) {
    out <- list()
    for (name in names(side)) {
      known(name, g$where, "")
      text <- side[[name]]
      value <- switch(r_type(types[[name]]),
                      integer = suppressWarnings(as.integer(text)),
                      double = suppressWarnings(as.numeric(text)), text)
      if (is.na(value) || !any(cells[[name]] == value, na.rm = TRUE)) {
        input_error(g$where, ": level '", text, "' of parameter ", name, " is not in the archives (levels: ",
                    format_list(sort(unique(na.omit(cells[[name]]))), 12L), ")")
      }
      out[[name]] <- value
    }
    out
  }
  lapply(guidelines, function(g) {
    known(g$parameter, g$where, "guideline parameter ")
    known(g$varied, g$where, "varied parameter ")
    g$a <- typed_side(g$a, g)
    g$b <- typed_side(g$b, g)
    g
  })
}
