# The content of report.md / report.html (blocks of report_blocks.R): a
# compact header, the verdict map (the whole verdict as one picture), the
# contents, then the sections: the verdict, the study's violation table,
# the violations, the closest calls, the parameter sets (what heals what),
# the plots with their captions, the provenance of every archive,
# warnings. A section is a level-2 heading; the contents list them all.

REPORT_ROWS <- 50L   # the longest table of the report; the CSV files have all rows

# The guidelines with their own ratio threshold (registry or assessment
# set), e.g. "own ratio thresholds: GL16 (20 guidelines) v >= 1.1"; NULL if
# none has one.
own_threshold_text <- function(guidelines) {
  own <- Filter(function(g) !is.null(g$v_thres), guidelines)
  if (!length(own)) return(NULL)
  x <- rbindlist(lapply(own, function(g) data.table(who = fcoalesce(g$tag, g$text), v = g$v_thres)))
  x <- x[, .N, by = .(who, v)]
  text <- sprintf("%s%s v >= %s", x$who, ifelse(x$N > 1L, sprintf(" (%d guidelines)", x$N), ""), format(x$v))
  paste0("own ratio thresholds: ", format_list(text, 4L),
         if (any(vapply(own, function(g) !is.null(g$computed), TRUE)))
           "; `max(SIDE; work)`: per run, the larger of SIDE's run median and that of the busy work measured on the left side")
}

# "GL4: a <= b" (or "a <= b" without a tag).
tagged <- function(tag, guideline) paste0(ifelse(is.na(tag), "", paste0(tag, ": ")), guideline)

# At most REPORT_ROWS rows of x, with a sentence saying where the rest is.
# explore: the name that makes the table sortable and filterable in the page.
bounded_table <- function(x, what, file, explore = NULL) {
  if (nrow(x) <= REPORT_ROWS) return(list(table_block(x, explore)))
  list(paragraph(sprintf("The first %d of %d %s (all in `%s`).", REPORT_ROWS, nrow(x), what, file)),
       table_block(head(x, REPORT_ROWS), explore))
}

# "violated tests/tests (violated groups/groups)" per guideline (rows) and
# context (columns), the format of the study's tables.
study_table <- function(summary) {
  s <- copy(summary)
  several <- function(col) uniqueN(s[[col]], na.rm = TRUE) > 1L
  s[, context := trimws(gsub(" +", " ", paste(if (several("library")) fcoalesce(library, "") else "",
                                              if (several("param_set")) fcoalesce(param_set, "") else "",
                                              fcoalesce(deployment, ""))))]
  s[!nzchar(context), context := "all"]
  s[, cell := sprintf("%d/%d (%d/%d)", n_vio_tests, n_tests, n_vio_groups, n_groups)]
  s[, row := paste0(ifelse(is.na(tag), "", paste0(tag, ": ")), guideline)]
  order <- unique(s[order(library, param_set, nprocs, deployment, na.last = TRUE), context])
  w <- dcast(s, guideline_no + row ~ factor(context, levels = order), value.var = "cell", fill = "")
  w[, guideline_no := NULL]
  setnames(w, "row", "guideline")
  w[]
}

flatten_json <- function(x, prefix = "") {
  out <- character()
  for (name in names(x)) {
    v <- x[[name]]
    key <- paste0(prefix, name)
    if (is.list(v) && !is.null(names(v))) out <- c(out, flatten_json(v, paste0(key, ".")))
    else if (is.list(v)) out[key] <- paste(vapply(v, function(e) {
      if (is.list(e)) paste(unlist(e), collapse = " ") else as.character(e)
    }, ""), collapse = "; ")
    else out[key] <- if (is.null(v)) "" else paste(as.character(v), collapse = ", ")
  }
  out
}


provenance_blocks <- function(archive) {
  blocks <- list(heading(archive$name, 3L), paragraph("Directory: `", normalizePath(archive$dir), "`"),
                 paragraph("Files: ", archive$manifest %||% "not verified"))
  if (!is.null(archive$info)) {
    # param_set_check has its own table below.
    info <- flatten_json(archive$info[setdiff(names(archive$info), "param_set_check")])
    blocks <- c(blocks, list(collapsed(sprintf("archive.json (%d fields)", length(info)),
                                       list(bullets(paste0(names(info), ": ", info))))))
  }
  r <- archive$runs
  states <- r[, .(runs = .N, done = sum(state == "done"), other = paste(unique(state[state != "done"]), collapse = " "),
                  library_version = paste(unique(na.omit(library_version)), collapse = "; "),
                  hosts = format_list(unique(unlist(strsplit(na.omit(hosts), ";"))), 4L)),
              by = .(deployment, param_set, library)]
  blocks <- c(blocks, list(paragraph("**runs.csv**"), table_block(states)))
  prov <- Filter(Negate(is.null), read_provenance(archive))
  if (length(prov)) {
    flat <- lapply(prov, function(p) flatten_json(p[setdiff(names(p), c("hosts", "input", "prefix"))]))
    keys <- unique(unlist(lapply(flat, names)))
    lines <- vapply(keys, function(k) {
      values <- unique(vapply(flat, function(f) if (k %in% names(f)) f[[k]] else "", ""))
      if (length(values) == 1L) sprintf("%s: %s", k, values)
      else sprintf("%s: %d values (%s)", k, length(values), format_list(sort(values), 3L))
    }, "")
    title <- sprintf("results/RUN.prov.json (%d runs, %d fields)", length(prov), length(lines))
    blocks <- c(blocks, list(collapsed(title, list(bullets(lines)))))
  }
  c(blocks, param_set_provenance_blocks(archive))
}

# The parameter sets of an archive: each value set against what the library
# reported in force (archive.json param_set_check).
param_set_provenance_blocks <- function(archive) {
  if (is.null(archive$param_sets) || !nrow(archive$param_sets)) return(list())
  p <- param_set_provenance(archive)
  bare <- setdiff(unique(archive$param_sets$param_set), p$param_set)
  blocks <- list(paragraph("**Parameter sets** (param_sets.csv; in force: archive.json param_set_check, ",
                           "the values the library reported through MPI_T)"))
  if (nrow(p)) {
    shown <- with(p, fifelse(check == "differs", sprintf("DIFFERS in %d of %d runs", differs, checked),
                     fifelse(check == "not reported", sprintf("NOT REPORTED in %d of %d runs", not_reported, checked),
                     fifelse(check == "set, not verifiable",
                             sprintf("set, not verifiable (%d of %d runs; %s)", not_verifiable, checked,
                                     fcoalesce(why, "MPI_T cannot show it")),
                     fifelse(check == "in force", sprintf("in force (%d of %d runs)", in_force, checked),
                             "not checked")))))
    blocks <- c(blocks, list(table_block(p[, .(`parameter set` = param_set, parameter = name, `value set` = value,
                                               `reported in force` = fcoalesce(reported, ""), runs, check = shown)])))
  }
  if (length(bare)) {
    blocks <- c(blocks, list(paragraph(paste0("`", bare, "`", collapse = ", "),
                                       ": no parameters (the library's defaults).")))
  }
  blocks
}

# Per guideline and context, the test nearest to a violation (closest_calls).
closest_call_blocks <- function(closest, params, result) {
  blocks <- list(heading("Closest calls"),
                 paragraph(sprintf(paste("Per guideline and context, the test that is not violated with the largest ratio:",
                                         "`short of` says what kept it from a violation (ratio below %s, p above %s)."),
                                   format(result$v_thres), format(result$p_thres))))
  if (!nrow(closest)) return(c(blocks, list(paragraph("None: every test is violated, or there are no tests."))))
  x <- trust_columns(closest[, .(guideline = tagged(tag, guideline), context = context_text(closest),
                                 parameters = parameter_text(closest, params), level = varied_level(closest),
                                 ratio = sprintf("%.3f", ratio), p = sprintf("%.2g", p_value),
                                 `median a (µs)` = sprintf("%.4g", median_a_us),
                                 `median b (µs)` = sprintf("%.4g", median_b_us),
                                 runs = runs_text(closest), slower, `short of` = short_of)], closest, result)
  c(blocks, bounded_table(x, "closest calls", "closest.csv", "closest"))
}

# With several parameter sets (SPEC 6): what each set costs and heals
# against the reference set (tuning_tables).
tuning_blocks <- function(tuning, params, result) {
  if (length(result$param_sets) < 2L) return(list())
  ref <- tuning$reference
  ratio_p <- function(r, p) ifelse(is.na(r), "", sprintf("%.3f (p = %.2g)", r, p))
  blocks <- list(
    heading("Parameter sets: what heals what"),
    paragraph(sprintf(paste("Reference set: `%s`. A violation of the reference is **removed** by a set where the",
                            "same test (same guideline and parameters but the set) holds under it (the upper",
                            "bound of its ratio's interval below the hold ratio); where that test is open",
                            "(neither violated nor holding) the violation is **no longer significant**, not",
                            "removed; a set **adds** the violations it has that the reference has not. Cells: every",
                            "cell measured under both, compared as the guideline `SET <= %s` (slower: violated)",
                            "and `%s <= SET` (faster: violated) with the same test and thresholds; ratio =",
                            "median(SET) / median(%s) of the run medians. In `heal.csv`, `heal_sets.csv`,",
                            "`set_comparison.csv`."), ref, ref, ref, ref)))
  s <- tuning$sets
  blocks <- c(blocks, list(table_block(s[, .(set = param_set, context = context_text(s, c("library", "deployment")),
                                            `violations of the reference` = ref_violations, removed,
                                            `no longer significant` = no_longer_significant, kept,
                                            `not measured` = not_measured, added, `slower cells` = cells_slower,
                                            `faster cells` = cells_faster, cells,
                                            `largest ratio` = ifelse(is.na(max_ratio), "", sprintf("%.3f", max_ratio)),
                                            `smallest ratio` = ifelse(is.na(min_ratio), "", sprintf("%.3f", min_ratio)))])))
  h <- tuning$heal
  fixed <- h[status != "added"]
  blocks <- c(blocks, list(heading(sprintf("Violations of `%s` and the sets that remove them", ref), 3L)))
  if (nrow(fixed)) {
    x <- fixed[, .(guideline = tagged(tag, guideline), context = context_text(fixed, c("library", "deployment")),
                   parameters = parameter_text(fixed, params), level = varied_level(fixed), set = param_set,
                   removed = unname(c(removed = "yes (holds)", `no longer significant` = "no longer significant (open)",
                                      kept = "no", `not measured` = "not measured")[status]),
                   reference = ratio_p(ref_ratio, ref_p_value), `under the set` = ratio_p(ratio, p_value))]
    setnames(x, "reference", paste("under", ref))
    blocks <- c(blocks, bounded_table(x, "rows", "heal.csv", "heal"))
  } else {
    blocks <- c(blocks, list(paragraph(sprintf("`%s` has no violations.", ref))))
  }
  added <- h[status == "added"]
  blocks <- c(blocks, list(heading("Violations the sets add", 3L)))
  if (nrow(added)) {
    x <- added[, .(set = param_set, guideline = tagged(tag, guideline),
                   context = context_text(added, c("library", "deployment")),
                   parameters = parameter_text(added, params), level = varied_level(added),
                   `under the set` = ratio_p(ratio, p_value), reference = ratio_p(ref_ratio, ref_p_value))]
    setnames(x, "reference", paste("under", ref))
    blocks <- c(blocks, bounded_table(x, "added violations", "heal.csv", "added"))
  } else {
    blocks <- c(blocks, list(paragraph("None.")))
  }
  slow <- tuning$comparison[slower == TRUE][order(-ratio)]
  blocks <- c(blocks, list(heading(sprintf("Cells where a set is slower than `%s`", ref), 3L)))
  if (nrow(slow)) {
    blocks <- c(blocks, bounded_table(slow[, .(set = param_set, context = context_text(slow, c("library", "deployment")),
                                               parameters = shared_text(slow, params, TRUE),
                                               ratio = sprintf("%.3f", ratio), p = sprintf("%.2g", p_slower),
                                               `median set (µs)` = sprintf("%.4g", median_set_us),
                                               `median reference (µs)` = sprintf("%.4g", median_reference_us))],
                                      "slower cells, largest ratio first", "set_comparison.csv", "set-slower"))
  } else {
    blocks <- c(blocks, list(paragraph("None.")))
  }
  blocks
}

# The report's first picture: the verdict map (plots/verdict_map.R), or
# nothing where plots are not drawn.
verdict_map_blocks <- function(map) {
  if (is.null(map) || !nrow(map)) return(list())
  list(figure(map$png, paste0("Verdict map: ", map$title, ". ", map$caption), id = "verdict-map"))
}

plot_blocks <- function(result, plots, settings) {
  overview <- plots$overview
  focus <- plots$focus
  close <- plots$closest
  blocks <- list(heading("Plots"))
  if (!isTRUE(settings$plots)) return(c(blocks, list(paragraph("Plots were not drawn (--no-plots)."))))
  if (!nrow(overview) && !nrow(focus) && !nrow(close)) return(c(blocks, list(paragraph("No plots."))))
  if (settings$left_out > 0L) {
    blocks <- c(blocks, list(paragraph(sprintf("%d plots left out (--max-plots %d).", settings$left_out, settings$max_plots))))
  }
  if (nrow(close)) {
    blocks <- c(blocks, list(paragraph("Where a guideline has no violation in a library and deployment, ",
                                       "the overview of its closest call's group (captioned *Closest call*).")))
  }
  focus_figure <- function(j) {
    figure(focus$png[j], paste0("Focus: ", focus$title[j], ", ", focus$varied[j], "=", focus$level[j], ". ",
                                focus$caption[j]))
  }
  for (k in sort(unique(c(overview$guideline_no, focus$guideline_no, close$guideline_no)))) {
    g <- result$guidelines[[k]]
    blocks <- c(blocks, list(heading(tagged(g$tag, g$text), 3L)))
    for (i in which(overview$guideline_no == k)) {
      o <- overview[i]
      blocks <- c(blocks, list(figure(o$png, paste0("Overview: ", o$title, ". ", o$caption))))
      for (j in which(focus$guideline_no == k & focus$group == o$group)) blocks <- c(blocks, list(focus_figure(j)))
    }
    for (j in which(focus$guideline_no == k & !focus$group %in% overview$group[overview$guideline_no == k])) {
      blocks <- c(blocks, list(focus_figure(j)))
    }
    for (i in which(close$guideline_no == k)) {
      blocks <- c(blocks, list(figure(close$png[i], paste0("Closest call (not violated): ", close$title[i], ". ",
                                                           close$caption[i]))))
    }
  }
  blocks
}

# The process graphs of graph experiments: their descriptions and the heat
# maps of their communication volume; nothing without graph experiments.
graph_blocks <- function(graphs, heatmaps, settings) {
  if (is.null(graphs) || !nrow(graphs)) return(list())
  blocks <- list(heading("Process graphs"),
                 paragraph("Each graph file the runs read (also in `graphs.csv`): degree = destinations per process; ",
                           "entries = vector entries a process sends per exchange (bytes = entries x msize); ",
                           "edge cut = matrix couplings between processes (undirected)."),
                 table_block(graph_report_table(graphs)))
  if (!is.null(heatmaps) && nrow(heatmaps)) {
    for (i in seq_len(nrow(heatmaps))) {
      blocks <- c(blocks, list(figure(heatmaps$png[i], paste0("Communication volume: ", heatmaps$title[i], ". ",
                                                              heatmaps$caption[i]))))
    }
  } else if (!isTRUE(settings$plots)) {
    blocks <- c(blocks, list(paragraph("Heat maps were not drawn (--no-plots).")))
  }
  blocks
}

build_report <- function(result, tt, summary, plots, warnings, settings, closest, tuning) {
  params <- result$shown_params %||% result$params$name   # the CSV files name every parameter
  vt <- tt[violated == TRUE]
  n_groups <- uniqueN(tt[, .(guideline_no, group)])
  n_vio_groups <- uniqueN(vt[, .(guideline_no, group)])
  several_sets <- length(result$param_sets) > 1L
  blocks <- list(
    heading("nbhbench analysis", 1L),
    facts(c(paste0("archives: ", paste0("`", vapply(result$archives, `[[`, "", "name"), "`", collapse = ", ")),
              paste0("assessment: `", result$assessment_file, "`"),
              method_text(result, tt),
              own_threshold_text(result$guidelines),
              if (several_sets) paste0("parameter sets: ", paste0("`", result$param_sets, "`", collapse = ", "),
                                       "; reference: `", result$reference_set, "`"),
              trust_settings_text(result),
              paste0("analysed: ", settings$created, " by nbhbench ", settings$version))))
  blocks <- c(blocks, verdict_map_blocks(plots$verdict), list(contents()), trust_banner_blocks(result, summary, tt), list(
    heading("Verdict"),
    paragraph(sprintf("**%d of %d tests violated** (%d of %d groups) over %d guidelines.",
                      nrow(vt), nrow(tt), n_vio_groups, n_groups, length(result$guidelines)),
              if (!nrow(vt) && nrow(tt)) " No test is violated; the closest calls show how near each guideline came."),
    paragraph(chance_text(result, nrow(tt))),
    heading("Violations per guideline and deployment"),
    paragraph("violated tests/tests (violated groups/groups); a group is the tests that differ only in the varied parameter."),
    table_block(study_table(summary))), aa_blocks(result, tt), plan_blocks(result$plan), reorder_blocks(result), list(
    heading("Violations")))
  if (nrow(vt)) {
    shown <- head(vt[order(-ratio)], REPORT_ROWS)
    blocks <- c(blocks, list(
      paragraph(if (nrow(vt) > REPORT_ROWS) sprintf("The %d largest of %d (all in `violations.csv`).", REPORT_ROWS, nrow(vt))
                else "All violations, largest ratio first (also in `violations.csv`)."),
      table_block(trust_columns(shown[, .(guideline = tagged(tag, guideline), context = context_text(shown),
                                          parameters = parameter_text(shown, params), level = varied_level(shown),
                                          ratio = sprintf("%.3f", ratio), p = sprintf("%.2g", p_value),
                                          runs = runs_text(shown), slower)], shown, result),
                  "violations")))
  } else {
    blocks <- c(blocks, list(paragraph("None.")))
  }
  blocks <- with_decision_blocks(blocks, decision_blocks(result, tt))
  blocks <- c(blocks, closest_call_blocks(closest, params, result), tuning_blocks(tuning, params, result),
              overlap_blocks(result, plots$overlap, settings), graph_blocks(result$graphs, plots$heatmaps, settings),
              characterization_blocks(result, plots$characterization, settings),
              arrival_blocks(result, plots$arrival, settings),
              plot_blocks(result, plots, settings))
  blocks <- c(blocks, node_aware_blocks(result))
  blocks <- c(blocks, tail_latency_blocks(result, settings))
  blocks <- c(blocks, break_even_blocks(result, settings))
  blocks <- c(blocks, list(heading("Provenance")), unlist(lapply(result$archives, provenance_blocks), recursive = FALSE))
  c(blocks, list(heading("Warnings"), if (length(warnings)) bullets(warnings) else paragraph("None.")))
}
