# Which runs the assessment trusts (SPEC 7.4, "Layout"). archive checked
# every run's hosts against its deployment (runs.csv: layout,
# layout_detail, ranks_per_host, cores_per_host, oversubscribed; docs/
# archive.md). A run whose processes did not land as asked measured another
# deployment than it is filed under: it is left out of the assessment
# unless --include-mismatched, and the report says which. Archives made
# before this check have no layout column: their runs are taken as they are.

# One row per run of every archive: its context and what archive found.
run_layout <- function(archives) {
  rbindlist(lapply(archives, function(a) {
    r <- a$runs
    r[, .(archive = a$name, run_id, library, param_set, deployment, state, layout = fcoalesce(layout, ""),
          layout_detail = fcoalesce(layout_detail, ""), ranks_per_host = fcoalesce(ranks_per_host, ""),
          cores_per_host = fcoalesce(cores_per_host, ""), oversubscribed = fcoalesce(oversubscribed, ""),
          reorder_experiments, reorder_changed)]
  }))
}

# The archives without their layout-mismatch runs (all kept with include =
# TRUE), and the runs concerned: list(archives, mismatched, included).
select_runs <- function(archives, include = FALSE) {
  layout <- run_layout(archives)
  mismatched <- layout[layout == "layout-mismatch"]
  if (nrow(mismatched) && !include) {
    if (nrow(mismatched) == nrow(layout)) {
      input_error("every run of ", format_list(unique(mismatched$archive), 3L), " is a layout-mismatch (",
                  mismatched$run_id[1], ": ", mismatched$layout_detail[1],
                  "); nothing to assess (--include-mismatched assesses them anyway)")
    }
    nbh_warning(nrow(mismatched), " of ", nrow(layout), " runs left out of the assessment: their processes did ",
                "not land as their deployment asks (layout-mismatch: ", format_list(mismatched$run_id, 3L),
                "; ", mismatched$run_id[1], ": ", mismatched$layout_detail[1], "); --include-mismatched keeps them")
    archives <- lapply(archives, function(a) {
      a$left_out <- mismatched[archive == a$name, run_id]
      if (length(a$left_out)) a$runs <- a$runs[!run_id %in% a$left_out]
      a
    })
  } else if (nrow(mismatched)) {
    nbh_warning(nrow(mismatched), " of ", nrow(layout), " runs are layout-mismatches, assessed anyway ",
                "(--include-mismatched): ", format_list(mismatched$run_id, 3L))
  }
  list(archives = archives, mismatched = mismatched, included = include, layout = layout)
}
