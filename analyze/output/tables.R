# The tables of the analysis: every test with its parameters (tests.csv),
# the violated ones (violations.csv), and the counts per guideline and
# context (summary.csv). docs/analyze.md describes every column.

# One row per test. A parameter column holds the value both sides share; it
# is empty where they differ, and a_params / b_params list those values
# (`topology=cart` / `topology=vneum,radius=1,order=FMAJ`).
test_table <- function(result) {
  tests <- result$tests
  cells <- result$frame$cells
  params <- result$params$name
  g <- rbindlist(lapply(result$guidelines, function(x) {
    data.table(set = x$set, tag = x$tag, text = x$text, relation = x$relation,
               parameter = x$parameter, varied = x$varied, a_text = x$a_text, b_text = x$b_text,
               computed = !is.null(x$computed), computed_kind = x$computed %||% NA_character_,
               v_thres = x$v_thres %||% NA_real_, statistic = x$statistic %||% "median")
  }))[, guideline := .I]
  # guideline is 1..G: g's rows by index, no join
  out <- cbind(g[tests$guideline, setdiff(names(g), names(tests)), with = FALSE], tests)
  a_pieces <- b_pieces <- list()
  for (p in params) {
    distinct <- unique(cells[[p]])
    if (length(distinct) == 1L) {   # one value in every cell (most parameters of a campaign): both sides have it
      set(out, j = p, value = rep(distinct, nrow(tests)))
      next
    }
    a_value <- cells[[p]][tests$a_cell]
    b_value <- cells[[p]][tests$b_cell]
    same <- (is.na(a_value) & is.na(b_value)) | (!is.na(a_value) & !is.na(b_value) & a_value == b_value)
    value <- a_value
    value[!same] <- NA
    set(out, j = p, value = value)
    if (all(same)) next
    piece <- function(v) {
      differs <- which(!same & !is.na(v))
      levels <- unique(v[differs])   # a few values, many rows: each value made text once
      text <- character(length(v))
      text[differs] <- paste0(p, "=", levels)[match(v[differs], levels)]
      text
    }
    a_pieces[[p]] <- piece(a_value)
    b_pieces[[p]] <- piece(b_value)
  }
  a_params <- join_pieces(a_pieces, nrow(tests))
  b_params <- join_pieces(b_pieces, nrow(tests))
  out[, `:=`(a_params = a_params, b_params = b_params,
             median_a_us = median_a * 1e6, median_b_us = median_b * 1e6)]
  # A computed side (computed_sides.R): b_cell is the partner inside max() or plus().
  out[, c("a_params", "b_params") := computed_params_text(computed_kind, a_params, b_params)]
  out[, computed_kind := NULL]
  setnames(out, c("guideline", "text"), c("guideline_no", "guideline"))
  setcolorder(out, c("guideline_no", "set", "tag", "guideline", "relation", "statistic", params, "a_params",
                     "b_params", "runs_a", "runs_b", "median_a_us", "median_b_us", "ratio", "p_value",
                     "slower", "violated", "group", "test", "a_cell", "b_cell"))
  out[, c("median_a", "median_b") := NULL]
  out[]
}

# "p=v,q=w" from a list of per-parameter columns of "p=v" or "".
join_pieces <- function(pieces, n) {
  joined <- character(n)
  for (piece in pieces) {
    some <- which(nzchar(piece))
    first <- !nzchar(joined[some])
    joined[some] <- paste0(joined[some], ifelse(first, "", ","), piece[some])
  }
  joined
}

# One row per guideline and context (the run parameters both sides share;
# empty where the guideline compares them), in assessment order.
summary_table <- function(result, tt = test_table(result)) {
  by <- c("guideline_no", RUN_PARAMETERS)
  s <- tt[, .(n_vio_tests = sum(violated), n_tests = .N,
              n_vio_groups = uniqueN(group[violated]), n_groups = uniqueN(group)), keyby = by]
  # A guideline without a single test still gets a row, with zeros.
  none <- setdiff(seq_along(result$guidelines), s$guideline_no)
  if (length(none)) {
    s <- rbind(s, data.table(guideline_no = none, n_vio_tests = 0L, n_tests = 0L, n_vio_groups = 0L,
                             n_groups = 0L), fill = TRUE)
  }
  g <- rbindlist(lapply(result$guidelines, function(x) data.table(set = x$set, tag = x$tag, text = x$text)))
  s <- cbind(g[s$guideline_no], s)
  setorderv(s, c("guideline_no", "library", "param_set", "nprocs", "deployment"), na.last = TRUE)
  setnames(s, "text", "guideline")
  setcolorder(s, c("set", "tag", "guideline", "library", "param_set", "deployment", "nprocs",
                   "n_vio_tests", "n_tests", "n_vio_groups", "n_groups", "guideline_no"))
  s[]
}

# The violations, largest ratio first within each guideline.
violation_table <- function(tt) {
  v <- tt[violated == TRUE]
  setorder(v, guideline_no, -ratio)
  v[]
}

# The cross-set comparison (compare_param_sets) with every parameter of the
# compared cell: one row per cell and set, medians in µs.
set_comparison_table <- function(comparison, cells, params) {
  x <- cells[comparison$set_cell, setdiff(params, "param_set"), with = FALSE]
  out <- cbind(comparison[, .(reference, param_set)], x,
               comparison[, .(runs_set, runs_reference = runs_ref, median_set_us = median_set * 1e6,
                              median_reference_us = median_ref * 1e6, ratio, ratio_ci_low, ratio_ci_high, method,
                              pairs, p_slower, p_faster, slower, faster)])
  out[]
}
