# Parses an assessment file (docs/assessment.md) into a list of guidelines,
# each list(set, parameter, varied, tag, text, relation, a, b, a_text, b_text,
# where): a and b are named character vectors, parameter name -> level, the
# parameters the side fixes (an item without `=` is a level of the set's
# guideline parameter). relation is "<=" (a must not be slower than b) or
# "~" (alike: tested in both directions). A chain `a <= b <= c` is the
# guidelines `a <= b` and `b <= c`. A right side `max(SIDE; work)` or
# `plus(SIDE; delay)`, and `others(SIDE)` on both sides, are computed per
# run (computed_sides.R). A set may set its guidelines' ratio threshold
# (`v_thres = 1.2`) and the run statistic they compare (`statistic = p99`:
# each run's 99th percentile instead of its median; STATISTICS) and the
# test it uses (`method = study`: the 2017 study's unpaired rank-sum test
# of run medians; METHODS, assess_guideline.R). Names and
# levels are checked against the archives later (check_assessment).

RELATIONS <- c("<=" = "<=", "\u2aaf" = "<=", "~" = "~", "\u2248" = "~")
SET_SETTINGS <- c("parameter", "varied", "v_thres", "statistic", "method")
# The run statistic a set may compare (reduce_runs): the median of the
# times the Tukey filter kept (the default), or numpy's 90th or 99th
# percentile of all the run's times.
STATISTICS <- c("median", "p90", "p99")

parse_assessment <- function(file, tags = character()) {
  if (!file.exists(file)) input_error("assessment ", file, " does not exist")
  bytes <- readBin(file, "raw", file.size(file))
  nul <- match(as.raw(0L), bytes)
  if (!is.na(nul)) {
    input_error(file, ":", sum(bytes[seq_len(nul)] == as.raw(10L)) + 1L, ": a NUL byte (0x00): not a text file")
  }
  lines <- readLines(file, warn = FALSE, encoding = "UTF-8")
  relation_pattern <- paste0("\\s*(", paste(names(RELATIONS), collapse = "|"), ")\\s*")
  sets <- list()
  guidelines <- list()
  where <- function(i) sprintf("%s:%d", file, i)
  close_set <- function(set) {
    if (is.null(set)) return()
    for (key in c("parameter", "varied")) {
      if (is.null(set[[key]])) input_error(where(set$line), ": set [", set$name, "] has no '", key, " = ...'")
    }
    if (set$parameter == set$varied) input_error(where(set$line), ": set [", set$name, "]: the guideline parameter cannot be the varied parameter")
    if (!set$n) input_error(where(set$line), ": set [", set$name, "] has no guidelines")
  }
  set <- NULL
  pending <- list()   # guidelines of the current set, completed when it closes
  for (i in seq_along(lines)) {
    line <- trimws(sub("#.*$", "", lines[i]))
    if (!nzchar(line)) next
    if (grepl("^\\[.*\\]$", line)) {
      close_set(set)
      guidelines <- c(guidelines, finish_guidelines(pending, set))
      pending <- list()
      set <- list(name = trimws(substr(line, 2, nchar(line) - 1)), line = i, n = 0L)
      next
    }
    if (is.null(set)) input_error(where(i), ": '", line, "' before the first [set]")
    if (!grepl(relation_pattern, line, perl = TRUE)) {
      kv <- regmatches(line, regexec("^([A-Za-z_]+)\\s*=\\s*(\\S+)$", line))[[1]]
      if (!length(kv)) input_error(where(i), ": '", line, "' is neither 'parameter = NAME', 'varied = NAME' nor a guideline")
      if (!kv[2] %in% SET_SETTINGS) input_error(where(i), ": unknown setting '", kv[2], "' (", paste(SET_SETTINGS, collapse = ", "), ")")
      if (!is.null(set[[kv[2]]])) input_error(where(i), ": '", kv[2], "' given twice in set [", set$name, "]")
      if (kv[2] == "v_thres") {
        v <- suppressWarnings(as.numeric(kv[3]))
        if (is.na(v) || v <= 0) input_error(where(i), ": v_thres: '", kv[3], "' is not a positive ratio (e.g. 1.10)")
        kv[3] <- v
      }
      if (kv[2] == "statistic" && !kv[3] %in% STATISTICS) {
        input_error(where(i), ": statistic: unknown '", kv[3], "' (", paste(STATISTICS, collapse = ", "), ")")
      }
      if (kv[2] == "method" && !kv[3] %in% METHODS) {
        input_error(where(i), ": method: unknown '", kv[3], "' (", paste(METHODS, collapse = ", "), ")")
      }
      set[[kv[2]]] <- kv[3]
      next
    }
    tag <- NA_character_
    m <- regmatches(line, regexec("^([A-Za-z0-9_]+)\\s*:\\s*(.*)$", line))[[1]]
    if (length(m)) {
      tag <- m[2]
      line <- m[3]
      if (length(tags) && !tag %in% tags) {
        input_error(where(i), ": unknown guideline tag '", tag, "' (registry/guidelines.csv: ", paste(tags, collapse = ", "), ")")
      }
    }
    sides <- trimws(strsplit(line, relation_pattern, perl = TRUE)[[1]])
    rel <- regmatches(line, gregexpr(relation_pattern, line, perl = TRUE))[[1]]
    rel <- unname(RELATIONS[trimws(rel)])
    if (length(sides) != length(rel) + 1L || any(!nzchar(sides))) {
      input_error(where(i), ": '", line, "': a guideline is SIDE <= SIDE or SIDE ~ SIDE")
    }
    for (k in seq_along(rel)) {
      set$n <- set$n + 1L
      pending[[length(pending) + 1L]] <- list(
        tag = tag, relation = rel[k], a_text = sides[k], b_text = sides[k + 1L],
        text = if (length(rel) == 1L) gsub("\\s+", " ", line) else paste(sides[k], rel[k], sides[k + 1L]),
        where = where(i))
    }
  }
  close_set(set)
  guidelines <- c(guidelines, finish_guidelines(pending, set))
  if (!length(guidelines)) input_error("assessment ", file, " has no guidelines")
  guidelines
}

# Adds the set's parameter and varied parameter, and parses the sides.
finish_guidelines <- function(pending, set) {
  lapply(pending, function(g) {
    g$set <- set$name
    g$parameter <- set$parameter
    g$varied <- set$varied
    if (!is.null(set$v_thres)) g$v_thres <- as.numeric(set$v_thres)
    g$statistic <- set$statistic %||% "median"
    if (!is.null(set$method)) g$method <- set$method
    g <- with_computed_side(g)
    if (!is.null(g$computed) && g$statistic != "median") {
      input_error(g$where, ": statistic = ", g$statistic, " of set [", set$name,
                  "]: a computed side compares run medians only")
    }
    if (is.null(g[["a"]])) g$a <- parse_side(g$a_text, set$parameter, g$where)  # [[: $ would match a_text
    if (is.null(g$computed)) g$b <- parse_side(g$b_text, set$parameter, g$where)
    g
  })
}

parse_side <- function(text, parameter, where) {
  items <- trimws(strsplit(text, ",", fixed = TRUE)[[1]])
  if (!length(items) || any(!nzchar(items))) input_error(where, ": side '", text, "' has an empty item")
  has_name <- grepl("=", items, fixed = TRUE)
  names <- ifelse(has_name, trimws(sub("=.*$", "", items)), parameter)
  values <- ifelse(has_name, trimws(sub("^[^=]*=", "", items)), items)
  if (any(!nzchar(names) | !nzchar(values))) input_error(where, ": side '", text, "': write name=value")
  if (anyDuplicated(names)) input_error(where, ": side '", text, "' fixes ", names[anyDuplicated(names)], " twice")
  setNames(values, names)
}
