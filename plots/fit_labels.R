# A plot's title, subtitle and caption fitted to the width it is drawn at
# (render_plots): a line longer than the device is wide is wrapped, at
# spaces and, inside a word too long for a line (`neighbor_alltoallv_init,
# work_factor=0`), after its commas. ggplot2 neither wraps nor shrinks
# them: a long title runs off the right edge of the PNG. The plots leave
# their titles to it; their captions come wrapped for 8 inches.

# The width of an average character of DejaVu Sans (the "sans" of the
# Cairo devices) in ems, rounded up: titles of parameter names measure
# 0.52 em a character (underscores, digits, lower case); 0.6 leaves room.
LABEL_CHAR_EM <- 0.6

# p with every line of its title, subtitle and caption at most as wide as
# the device (width in inches) less the plot's margins.
fit_labels <- function(p, width) {
  theme <- p$theme
  if (!isTRUE(attr(theme, "complete"))) theme <- ggplot2::theme_grey() + theme
  margin <- ggplot2::calc_element("plot.margin", theme)
  usable <- width * 72 - sum(grid::convertWidth(margin[c(2, 4)], "points", valueOnly = TRUE))
  for (label in c("title", "subtitle", "caption")) {
    text <- p$labels[[label]]
    if (!is.character(text) || !length(text)) next
    size <- ggplot2::calc_element(paste0("plot.", label), theme)$size
    p$labels[[label]] <- wrap_lines(text, max(10L, floor(usable / (size * LABEL_CHAR_EM))))
  }
  p
}

# text with each of its lines longer than `chars` characters wrapped.
wrap_lines <- function(text, chars) {
  lines <- strsplit(text, "\n", fixed = TRUE)[[1]]
  paste(unlist(lapply(lines, function(line) if (nchar(line) <= chars) line else wrap_words(line, chars))),
        collapse = "\n")
}

# Greedy wrapping of one line into lines of at most `chars` characters;
# a word longer than that is cut after its commas (the pieces of one word
# join again without a space where they share a line), and where a piece
# is still too long, at `chars`.
wrap_words <- function(line, chars) {
  pieces <- list()
  for (word in strsplit(line, " ", fixed = TRUE)[[1]]) {
    cut <- if (nchar(word) <= chars) word else {
      parts <- regmatches(word, gregexpr("[^,]*,?", word))[[1]]
      unlist(lapply(parts[nzchar(parts)], function(part) {
        starts <- seq(1L, max(nchar(part), 1L), by = chars)
        substring(part, starts, pmin(starts + chars - 1L, nchar(part)))
      }))
    }
    pieces <- c(pieces, Map(function(text, glued) list(text = text, glued = glued), cut, seq_along(cut) > 1L))
  }
  lines <- character()
  current <- ""
  for (piece in pieces) {
    candidate <- if (!nzchar(current)) piece$text
                 else paste0(current, if (piece$glued) "" else " ", piece$text)
    if (nchar(candidate) <= chars || !nzchar(current)) {
      current <- candidate
    } else {
      lines <- c(lines, current)
      current <- piece$text
    }
  }
  c(lines, current)
}
