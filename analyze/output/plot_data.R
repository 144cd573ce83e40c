# What the plots draw, computed here so that plots/ only draws (SPEC 5):
#   overview_data  per violated group (or per closest call's group), the
#                  median of run medians of a and b at each level of the
#                  varied parameter, the violations (the closest call) marked;
#   focus_data     per violation, box statistics of the kept raw times of
#                  each run of a and b, normalised to median(m_a), and the
#                  view: whiskers far above the boxes cut (focus_view).
# Each returns list(plots = one row per plot: plot, file, title, caption,
# a_label, b_label (what differs between the sides: the title carries the
# guideline as written), varied, ...; data = the rows to draw, by plot).

# One plot per combination of the parameters APART that some row of X has
# (the others dropped): numbers the rows of X by their plot (column `plot`,
# set in place) and returns one row per plot with those parameters and a
# caption "name=value, ..." of the values it has.
plot_groups <- function(x, apart) {
  apart <- apart[vapply(apart, function(p) !all(is.na(x[[p]])), logical(1))]
  x[, plot := .GRP, by = apart]
  plots <- x[, .SD[1], by = plot, .SDcols = apart]
  shown <- function(row) {
    v <- vapply(apart, function(p) as.character(row[[p]]), "")
    paste0(apart[!is.na(v)], "=", v[!is.na(v)], collapse = ", ")
  }
  plots[, caption := vapply(seq_len(.N), function(i) shown(plots[i]), "")]
}

# "topology=cart, ndim=2, ...; a: op=...; b: op=..." for rows of the test
# table: the parameters both sides share (the varied one only if
# with_varied), then what differs.
parameter_text <- function(tt_rows, params, with_varied = FALSE) {
  sprintf("%s; a: %s; b: %s", shared_text(tt_rows, params, with_varied), tt_rows$a_params, tt_rows$b_params)
}

# The parameters the report's text names (issue 27): those that vary among
# the analysis's cells, and those whose value somewhere differs from the
# parameter's default (registry/parameters.csv; a default the registry
# describes, such as the layout's normal constructor, counts as met); every
# other one is the same everywhere and what a user gets without asking
# (layout=contiguous, arrival=none, sync=barrier, work_factor=0, ...),
# which the CSV files keep.
# `twin` is left to the sides of AA, the one guideline that compares by it.
report_params <- function(result) {
  params <- result$params$name
  cells <- result$frame$cells
  defaults <- setNames(result$registry$parameters$default, result$registry$parameters$name)
  keep <- vapply(params, function(p) {
    if (p %in% RUN_PARAMETERS) return(TRUE)
    if (p == "twin" || !p %in% names(cells)) return(FALSE)
    v <- unique(cells[[p]])   # the values once, then as text: some 10000 cells
    v <- unique(as.character(v[!is.na(v)]))
    literal <- if (is.na(defaults[p])) NA_character_ else literal_default(defaults[[p]])
    length(v) > 1L || (length(v) == 1L && !is.na(literal) && !identical(v, literal))
  }, TRUE)
  params[keep]
}

# A registry default as the value a cell holds ("0" for 0; NA for a
# described default such as "first of the topology's orders").
literal_default <- function(text) {
  if (!nzchar(text) || grepl(" ", text)) return(NA_character_)
  number <- suppressWarnings(as.numeric(text))
  if (is.na(number)) text else as.character(number)
}

# "topology=cart, ndim=2, ...": the experiment parameters of rows that have
# a value (the varied one only if with_varied, or if rows have no `varied`).
shared_text <- function(rows, params, with_varied = FALSE) {
  shared <- rep("", nrow(rows))
  varied <- if (with_varied || is.null(rows$varied)) rep(NA_character_, nrow(rows)) else rows$varied
  for (p in setdiff(params, RUN_PARAMETERS)) {
    v <- rows[[p]]
    piece <- paste0(p, "=", v)
    use <- !is.na(v) & (is.na(varied) | varied != p)
    shared <- ifelse(use, ifelse(nzchar(shared), paste0(shared, ", ", piece), piece), shared)
  }
  shared
}

# "openmpi default 2x4": the context of rows, without what a guideline
# compares (NA).
context_text <- function(rows, cols = c("library", "param_set", "deployment")) {
  pieces <- lapply(cols, function(col) fcoalesce(as.character(rows[[col]]), ""))
  trimws(gsub(" +", " ", do.call(paste, pieces)))
}

# "msize=1024": the level of the varied parameter of each row.
varied_level <- function(rows) {
  vapply(seq_len(nrow(rows)), function(i) paste0(rows$varied[i], "=", rows[[rows$varied[i]]][i]), "")
}

# "openmpi default, 2x4 (8 processes); " and the parameter_text.
plot_caption <- function(tt_rows, params, with_varied = FALSE) {
  deployment <- ifelse(is.na(tt_rows$deployment), "",
                       sprintf("%s (%s processes)", tt_rows$deployment, tt_rows$nprocs))
  context <- gsub("^, |, $", "", paste(context_text(tt_rows, c("library", "param_set")), deployment, sep = ", "))
  sprintf("%s; %s", context, parameter_text(tt_rows, params, with_varied))
}

plot_stem <- function(guideline_no, tag) {
  sprintf("%02d-%s", guideline_no, ifelse(is.na(tag), "guideline", tag))
}

# tt: the test table; groups: data.table(guideline_no, group) to draw, the
# violated levels marked; or, for closest calls, data.table(guideline_no,
# group, test) with the closest call's test marked.
overview_data <- function(tt, groups, params, closest = FALSE) {
  if (!nrow(groups)) return(list(plots = data.table(), data = data.table()))
  plots <- copy(groups)[, plot := .I]
  rows <- tt[plots[, .(guideline_no, group, plot)], on = c("guideline_no", "group")]
  rows[, marked := if (closest) test == plots$test[plot] else violated]
  first <- rows[, .SD[1], by = plot]
  plots[first, on = "plot", `:=`(
    file = sprintf("%s-%s-g%03d", if (closest) "closest" else "overview", plot_stem(i.guideline_no, i.tag), i.group),
    title = paste0(ifelse(is.na(i.tag), "", paste0(i.tag, ": ")), i.guideline),
    a_label = i.a_params, b_label = i.b_params, slower = i.slower, varied = i.varied)]
  plots[, caption := plot_caption(first, params)]
  plots[, mark := if (closest) "closest call (not violated)" else "violated"]
  if (closest) {
    call <- tt[plots[, .(guideline_no, test)], on = c("guideline_no", "test")]
    plots[, caption := sprintf("%s; closest call at %s: ratio %.3f, p = %.2g", caption, varied_level(call),
                               call$ratio, call$p_value)]
  }
  data <- rows[, .(plot, x = NA_character_, median_a_us, median_b_us, violated, marked, slower)]
  for (v in unique(rows$varied)) data[rows$varied == v, x := as.character(rows[[v]][rows$varied == v])]
  data[, x_num := suppressWarnings(as.numeric(x))]
  setorder(data, plot, x_num, x)
  list(plots = plots, data = data)
}

# One focus plot per test in `sel` (rows of the test table).
focus_data <- function(result, sel) {
  if (!nrow(sel)) return(list(plots = data.table(), data = data.table()))
  frame <- result$frame
  plots <- sel[, .(plot = .I, guideline_no, tag, guideline, group, test, a_cell, b_cell, ratio, p_value,
                   median_a_us, median_b_us, a_label = a_params, b_label = b_params, varied)]
  # b's median over a's, with the ratio's confidence interval in those units
  # (the ratio is a/b, or b/a for an `a ~ b` test slower on side b).
  if ("ratio_ci_low" %in% names(sel)) {
    plots[, `:=`(ratio_ci_low = sel$ratio_ci_low, ratio_ci_high = sel$ratio_ci_high,
                 b_low = fifelse(sel$slower == "b", sel$ratio_ci_low, 1 / sel$ratio_ci_high),
                 b_high = fifelse(sel$slower == "b", sel$ratio_ci_high, 1 / sel$ratio_ci_low))]
  }
  plots[, file := sprintf("focus-%s-g%03d-t%04d", plot_stem(guideline_no, tag), group, test)]
  plots[, title := paste0(ifelse(is.na(tag), "", paste0(tag, ": ")), guideline)]
  plots[, level := vapply(seq_len(nrow(sel)), function(i) as.character(sel[[sel$varied[i]]][i]), "")]
  plots[, caption := sprintf("%s; ratio %.3f%s, p = %.2g", plot_caption(sel, result$shown_params %||%
                                                                             result$params$name, TRUE),
                             ratio, if ("ratio_ci_low" %in% names(plots)) sprintf(" (95%% CI %s)", ci_text(ratio_ci_low, ratio_ci_high))
                             else "", p_value)]
  sides <- rbind(plots[, .(plot, side = "a", cell = a_cell)], plots[, .(plot, side = "b", cell = b_cell)])
  need <- unique(result$medians[cell %in% sides$cell, .(cell, run)])
  need[frame$cells, on = "cell", exp := i.exp]
  need[frame$runs, on = c(run = "run_key"), `:=`(archive = i.archive, run_id = i.run_id, run_no = i.run)]
  need[frame$ids, on = c("archive", "exp"), id := i.id]
  # The raw times of the runs involved, read again (in parallel, as reduce_runs).
  boxes <- rbindlist(map_in_workers(split(need, by = "run"), function(r) {
    archive <- result$archives[[r$archive[1]]]
    file <- file.path(archive$dir, "results", paste0(r$run_id[1], ".results.csv"))
    x <- withCallingHandlers(read_results(file, r$run_id[1], archive$experiments),
                             nbh_warning = function(w) invokeRestart("muffleWarning"))  # said before
    b <- box_stats(tukey_filter(x[id %in% r$id], "seconds", "id"), "seconds", "id")
    b[r, on = "id", `:=`(cell = i.cell, run_no = i.run_no)][!is.na(cell)]
  }))
  data <- sides[boxes, on = "cell", allow.cartesian = TRUE, nomatch = NULL]
  # Each run's 99th percentile of all its times (the tail the boxes' kept times leave out).
  tail <- result$medians[need, on = c("cell", "run"), nomatch = NULL, .(cell, run_no = i.run_no, p99 = x.p99)]
  data[tail, on = c("cell", "run_no"), p99 := i.p99]
  data[plots, on = "plot", scale := i.median_a_us / 1e6]
  for (col in c("ymin", "lower", "middle", "upper", "ymax", "p99")) set(data, j = col, value = data[[col]] / data$scale)
  data[, scale := NULL]
  setorder(data, plot, side, run_no)
  focus_view(plots, data[, .(plot, side, run = run_no, ymin, lower, middle, upper, ymax, n, p99)])
}

# How much room a focus plot gives the whiskers above its boxes and lines,
# in multiples of their range.
FOCUS_WHISKER_ROOM <- 1.5

# The view of each focus plot: every box, the reference lines (1, b's
# median over a's) and the ratio's interval, and whiskers up to
# FOCUS_WHISKER_ROOM times that range above it. A whisker that reaches
# further (one repetition 90 times the median flattens every box) is cut
# at the top of the view, the tallest whisker that fits (data: `top` the
# end drawn, `cut`; plots: `view_top`, NA where nothing is cut), and the
# plot marks it with its value.
focus_view <- function(plots, data) {
  plots <- copy(plots)
  data <- copy(data)
  refs <- plots[, .(plot, low = pmin(1, median_b_us / median_a_us), high = pmax(1, median_b_us / median_a_us))]
  if ("b_low" %in% names(plots)) {
    refs[, `:=`(low = pmin(low, plots$b_low, na.rm = TRUE), high = pmax(high, plots$b_high, na.rm = TRUE))]
  }
  span <- data[, .(low = min(lower), high = max(upper)), by = plot][refs, on = "plot", `:=`(
    low = pmin(low, i.low), high = pmax(high, i.high))]
  span[, limit := high + FOCUS_WHISKER_ROOM * (high - low)]
  data[span, on = "plot", cut := ymax > i.limit]
  span[data[cut == FALSE, .(tallest = max(ymax)), by = plot], on = "plot", tallest := i.tallest]
  span[, view_top := fifelse(plot %in% data[cut == TRUE, plot], pmax(high, fcoalesce(tallest, high)), NA_real_)]
  plots[span, on = "plot", view_top := i.view_top]
  data[plots, on = "plot", top := fifelse(cut, i.view_top, ymax)]
  list(plots = plots, data = data)
}
