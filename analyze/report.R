# The content of report.md / report.html (blocks of report_blocks.R): the
# verdict, the study's violation table, the parameter sets, the violations,
# the plots with their captions, the provenance of every archive, warnings.

# "violated tests/tests (violated groups/groups)" per guideline (rows) and
# context (columns), the format of the study's tables.
study_table <- function(summary) {
  s <- copy(summary)
  several <- function(col) uniqueN(s[[col]], na.rm = TRUE) > 1L
  s[, context := trimws(paste(if (several("library")) fcoalesce(library, "") else "",
                              if (several("param_set")) fcoalesce(param_set, "") else "",
                              fcoalesce(deployment, "")))]
  s[!nzchar(context), context := "all"]
  s[, cell := sprintf("%d/%d (%d/%d)", n_vio_tests, n_tests, n_vio_groups, n_groups)]
  s[, row := paste0(ifelse(is.na(tag), "", paste0(tag, ": ")), guideline)]
  order <- unique(s[order(library, param_set, nprocs, deployment, na.last = TRUE), context])
  w <- dcast(s, guideline_no + row ~ factor(context, levels = order), value.var = "cell", fill = "")
  w[, guideline_no := NULL]
  setnames(w, "row", "guideline")
  w[]
}

# With several parameter sets (SPEC 6): per guideline and context, the
# violated tests of each set, and how many of the reference set's (default,
# or the first) it removes or adds.
param_set_table <- function(tt, params) {
  sets <- sort(unique(na.omit(tt$param_set)))
  if (length(sets) < 2L) return(NULL)
  reference <- if ("default" %in% sets) "default" else sets[1]
  key <- c("guideline_no", setdiff(params, "param_set"), "a_params", "b_params")
  x <- tt[!is.na(param_set), c(key, "tag", "guideline", "param_set", "violated"), with = FALSE]
  ref <- x[param_set == reference, c(key, "violated"), with = FALSE]
  x[ref, on = key, ref_violated := i.violated]
  out <- x[, .(violated = sum(violated), removed = sum(ref_violated & !violated, na.rm = TRUE),
               added = sum(!ref_violated & violated, na.rm = TRUE), tests = .N),
           keyby = .(guideline_no, tag, guideline, library, deployment, param_set)]
  out[param_set == reference, c("removed", "added") := NA]
  setnames(out, c("removed", "added"), paste0(c("removed vs ", "added vs "), reference))
  out[, guideline_no := NULL][]
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
  blocks <- list(heading(archive$name, 3L), paragraph("Directory: `", normalizePath(archive$dir), "`"))
  if (!is.null(archive$info)) {
    info <- flatten_json(archive$info)
    blocks <- c(blocks, list(paragraph("**archive.json**"), bullets(paste0(names(info), ": ", info))))
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
    blocks <- c(blocks, list(paragraph("**results/RUN.prov.json** (", length(prov), " runs)"), bullets(lines)))
  }
  if (!is.null(archive$param_sets) && nrow(archive$param_sets)) {
    blocks <- c(blocks, list(paragraph("**param_sets.csv**"), table_block(archive$param_sets)))
  }
  blocks
}

build_report <- function(result, tt, summary, overview, focus, warnings, settings) {
  vt <- tt[violated == TRUE]
  n_groups <- uniqueN(tt[, .(guideline_no, group)])
  n_vio_groups <- uniqueN(vt[, .(guideline_no, group)])
  blocks <- list(
    heading("nbhbench analysis", 1L),
    bullets(c(paste0("archives: ", paste0("`", vapply(result$archives, `[[`, "", "name"), "`", collapse = ", ")),
              paste0("assessment: `", result$assessment_file, "`"),
              sprintf("violated iff ratio v >= %s and p <= %s (one-sided Wilcoxon rank-sum test of the run medians)",
                      format(result$v_thres), format(result$p_thres)),
              paste0("analysed: ", settings$created, " by nbhbench ", settings$version))),
    heading("Verdict"),
    paragraph(sprintf("**%d of %d tests violated** (%d of %d groups) over %d guidelines.",
                      nrow(vt), nrow(tt), n_vio_groups, n_groups, length(result$guidelines))),
    heading("Violations per guideline and deployment"),
    paragraph("violated tests/tests (violated groups/groups); a group is the tests that differ only in the varied parameter."),
    table_block(study_table(summary)))
  ps <- param_set_table(tt, result$params$name)
  if (!is.null(ps)) {
    blocks <- c(blocks, list(heading("Library parameter sets"),
                             paragraph("Violated tests per parameter set, and the violations of the reference set that each set removes or adds."),
                             table_block(ps)))
  }
  blocks <- c(blocks, list(heading("Violations")))
  if (nrow(vt)) {
    shown <- head(vt[order(-ratio)], 50L)
    varied_level <- vapply(seq_len(nrow(shown)), function(i) {
      paste0(shown$varied[i], "=", shown[[shown$varied[i]]][i])
    }, "")
    blocks <- c(blocks, list(
      paragraph(if (nrow(vt) > 50L) sprintf("The 50 largest of %d (all in `violations.csv`).", nrow(vt))
                else "All violations, largest ratio first (also in `violations.csv`)."),
      table_block(shown[, .(guideline = paste0(ifelse(is.na(tag), "", paste0(tag, ": ")), guideline),
                            context = paste(library, param_set, deployment), parameters = parameter_text(shown, result$params$name),
                            level = varied_level, ratio = sprintf("%.3f", ratio), p = sprintf("%.2g", p_value),
                            runs = paste0(runs_a, "/", runs_b), slower)])))
  } else {
    blocks <- c(blocks, list(paragraph("None.")))
  }
  blocks <- c(blocks, list(heading("Plots")))
  if (!isTRUE(settings$plots)) {
    blocks <- c(blocks, list(paragraph("Plots were not drawn (--no-plots).")))
  } else if (!nrow(overview) && !nrow(focus)) {
    blocks <- c(blocks, list(paragraph("No violations, so no plots.")))
  } else {
    if (settings$left_out > 0L) {
      blocks <- c(blocks, list(paragraph(sprintf("%d plots left out (--max-plots %d).", settings$left_out, settings$max_plots))))
    }
    for (k in unique(c(overview$guideline_no, focus$guideline_no))) {
      g <- result$guidelines[[k]]
      blocks <- c(blocks, list(heading(paste0(ifelse(is.na(g$tag), "", paste0(g$tag, ": ")), g$text), 3L)))
      for (i in which(overview$guideline_no == k)) {
        o <- overview[i]
        blocks <- c(blocks, list(figure(o$png, paste0("Overview: ", o$title, ". ", o$caption))))
        for (j in which(focus$guideline_no == k & focus$group == o$group)) {
          blocks <- c(blocks, list(figure(focus$png[j], paste0("Focus: ", focus$title[j], ", ", focus$varied[j], "=",
                                                               focus$level[j], ". ", focus$caption[j]))))
        }
      }
      for (j in which(focus$guideline_no == k & !focus$group %in% overview[guideline_no == k, group])) {
        blocks <- c(blocks, list(figure(focus$png[j], paste0("Focus: ", focus$title[j], ", ", focus$varied[j], "=",
                                                             focus$level[j], ". ", focus$caption[j]))))
      }
    }
  }
  blocks <- c(blocks, list(heading("Provenance")), unlist(lapply(result$archives, provenance_blocks), recursive = FALSE))
  blocks <- c(blocks, list(heading("Warnings"), if (length(warnings)) bullets(warnings) else paragraph("None.")))
  blocks
}
