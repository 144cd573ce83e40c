# x's attribute NAME set to VALUE in place, as data.table's setattr does,
# but without its copy of VALUE (analyze/native/set_attribute.c): for the
# large tables the run medians carry (their round units, some 100 MB at
# make bench's scale). Where the C cannot be had, setattr: the same
# attribute, copied. Not for names, class, dim, row.names or levels.
set_attribute <- function(x, name, value) {
  if (is.null(call_native("nbh_set_attribute", x, name, value))) setattr(x, name, value)
  invisible(x)
}
