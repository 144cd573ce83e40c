# A report is a list of blocks (heading, paragraph, bullet list, table,
# figure, contents, a collapsed group) written out twice: as Markdown
# (report.md, figures linked) and as one self-contained HTML page
# (report.html, figures embedded as base64 data URIs, its style and a few
# lines of JavaScript inline, so it opens anywhere without its folder and
# without a network). Every heading gets an anchor (heading_anchors), the
# same in both; the contents block lists the headings after it.

heading <- function(text, level = 2L) list(kind = "heading", text = text, level = level)
paragraph <- function(...) list(kind = "paragraph", text = paste0(...))
bullets <- function(items) list(kind = "bullets", items = as.character(items))
# The report's first lines: archives, assessment, thresholds (compact in HTML).
facts <- function(items) list(kind = "facts", items = as.character(items))
# explore: a name for the table (e.g. "violations"); the HTML page makes
# such a table sortable and filterable (report_page.js).
table_block <- function(dt, explore = NULL) list(kind = "table", dt = dt, explore = explore)
figure <- function(png, caption, id = NULL) list(kind = "figure", png = png, caption = caption, id = id)
# The headings of level 2 and 3 after it, linked to their anchors.
contents <- function() list(kind = "contents")
# blocks under a one-line summary: collapsed in HTML, as they are in Markdown.
collapsed <- function(summary, blocks) list(kind = "collapsed", summary = summary, blocks = blocks)

# The anchor of every heading of blocks (also inside collapsed groups), in
# order: its text as GitHub makes a Markdown heading's anchor (lower case;
# letters, digits, spaces, hyphens and underscores kept; spaces to
# hyphens), "-1", "-2", ... added where a heading's text repeats. The same
# report has the same anchors; a Markdown viewer's links match.
heading_anchors <- function(blocks) {
  texts <- heading_texts(blocks)
  slug <- tolower(gsub("[`*]", "", texts))
  slug <- gsub(" ", "-", gsub("[^\\p{L}\\p{N}\\p{M} _-]", "", slug, perl = TRUE), fixed = TRUE)
  slug[!nzchar(slug)] <- "section"
  seen <- integer()
  for (i in seq_along(slug)) {
    base <- slug[i]
    n <- if (base %in% names(seen)) seen[[base]] + 1L else 0L
    seen[[base]] <- n
    if (n > 0L) slug[i] <- paste0(base, "-", n)
  }
  slug
}

heading_texts <- function(blocks) {
  unlist(lapply(blocks, function(b) {
    if (identical(b$kind, "heading")) b$text else if (identical(b$kind, "collapsed")) heading_texts(b$blocks)
  }))
}

# list(text, level, anchor) of every heading of level 2 or 3 after the
# first contents block (all headings if there is none).
contents_entries <- function(blocks) {
  flat <- flatten_blocks(blocks)
  kinds <- vapply(flat, `[[`, "", "kind")
  headings <- which(kinds == "heading")
  anchors <- heading_anchors(blocks)
  after <- if (any(kinds == "contents")) headings > which(kinds == "contents")[1] else rep(TRUE, length(headings))
  levels <- vapply(flat[headings], function(b) as.integer(b$level), 1L)
  keep <- after & levels %in% c(2L, 3L)
  data.table(text = vapply(flat[headings], `[[`, "", "text")[keep], level = levels[keep], anchor = anchors[keep])
}

# blocks with the collapsed groups opened, in order.
flatten_blocks <- function(blocks) {
  unlist(lapply(blocks, function(b) if (identical(b$kind, "collapsed")) flatten_blocks(b$blocks) else list(b)),
         recursive = FALSE)
}

md_escape <- function(x) gsub("|", "\\|", gsub("\n", " ", x, fixed = TRUE), fixed = TRUE)

to_markdown <- function(blocks) {
  entries <- contents_entries(blocks)
  render <- function(blocks) unlist(lapply(blocks, function(b) {
    switch(b$kind,
      heading = c(paste(strrep("#", b$level), b$text), ""),
      paragraph = c(b$text, ""),
      bullets = , facts = c(if (length(b$items)) paste("-", md_escape(b$items)) else character(), ""),
      contents = c("**Contents**", "",
                   sprintf("%s- [%s](#%s)", ifelse(entries$level == 3L, "  ", ""), md_link_text(entries$text),
                           entries$anchor), ""),
      collapsed = c(paste0("**", b$summary, "**"), "", render(b$blocks)),
      table = {
        d <- as.data.frame(b$dt)
        cells <- vapply(d, function(col) md_escape(ifelse(is.na(col), "", as.character(col))), character(nrow(d)))
        if (!is.matrix(cells)) cells <- matrix(cells, nrow = nrow(d))
        c(paste0("| ", paste(md_escape(names(d)), collapse = " | "), " |"),
          paste0("|", paste(rep("---", ncol(d)), collapse = "|"), "|"),
          if (nrow(d)) apply(cells, 1, function(r) paste0("| ", paste(r, collapse = " | "), " |")), "")
      },
      figure = c(sprintf("![%s](%s)", md_escape(b$caption), b$png), "",
                 paste0("*", md_escape(b$caption), "*"), ""))
  }))
  paste(render(blocks), collapse = "\n")
}

# A heading's text as the text of a Markdown link: brackets escaped.
md_link_text <- function(x) gsub("([][])", "\\\\\\1", x)

# Text for the page, in an element or in a quoted attribute (alt="..."):
# archive values (library, parameter sets, graph files, campaign and
# archive names) may hold any character, and none of them may end an
# attribute or start a tag.
html_escape <- function(x) {
  x <- gsub("&", "&amp;", x, fixed = TRUE)
  x <- gsub("<", "&lt;", x, fixed = TRUE)
  x <- gsub(">", "&gt;", x, fixed = TRUE)
  x <- gsub("\"", "&quot;", x, fixed = TRUE)
  gsub("'", "&#39;", x, fixed = TRUE)
}

# Inline `code` spans, **bold** and *italics* of the Markdown paragraphs, in HTML.
html_inline <- function(x) {
  x <- html_escape(x)
  x <- gsub("`([^`]*)`", "<code>\\1</code>", x)
  x <- gsub("\\*\\*([^*]*)\\*\\*", "<strong>\\1</strong>", x)
  gsub("(^|[^*\\w])\\*([^*\\s][^*]*)\\*(?![*\\w])", "\\1<em>\\2</em>", x, perl = TRUE)
}

to_html <- function(blocks, title, dir) {
  anchors <- heading_anchors(blocks)
  entries <- contents_entries(blocks)
  next_heading <- 0L
  render <- function(blocks) unlist(lapply(blocks, function(b) {
    switch(b$kind,
      heading = {
        next_heading <<- next_heading + 1L
        sprintf("<h%d id=\"%s\">%s</h%d>", b$level, anchors[next_heading], html_inline(b$text), b$level)
      },
      paragraph = sprintf("<p>%s</p>", html_inline(b$text)),
      bullets = c("<ul>", sprintf("<li>%s</li>", html_inline(b$items)), "</ul>"),
      facts = c("<ul class=\"facts\">", sprintf("<li>%s</li>", html_inline(b$items)), "</ul>"),
      contents = html_contents(entries),
      collapsed = c(sprintf("<details><summary>%s</summary>", html_inline(b$summary)), render(b$blocks),
                    "</details>"),
      table = html_table(b$dt, b$explore),
      figure = {
        png <- file.path(dir, b$png)
        src <- paste0("data:image/png;base64,",
                      gsub("\n", "", jsonlite::base64_enc(readBin(png, "raw", file.size(png))), fixed = TRUE))
        sprintf("<figure%s><img src=\"%s\" alt=\"%s\"><figcaption>%s</figcaption></figure>",
                if (is.null(b$id)) "" else sprintf(" id=\"%s\"", b$id), src, html_escape(b$caption),
                html_escape(b$caption))
      })
  }))
  body <- render(blocks)
  paste(c("<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
          sprintf("<title>%s</title>", html_escape(title)), sprintf("<style>\n%s</style>", report_page_file("css")),
          "</head><body>", "<main>", body, "</main>",
          "<a class=\"to-contents\" href=\"#contents\" title=\"contents\">&#8593; contents</a>",
          sprintf("<script>\n%s</script>", report_page_file("js")), "</body></html>"), collapse = "\n")
}

# The contents: the level-2 headings, each with its level-3 headings.
html_contents <- function(entries) {
  if (!nrow(entries)) return(character())
  out <- character()
  item_open <- sub_open <- FALSE
  for (i in seq_len(nrow(entries))) {
    link <- sprintf("<a href=\"#%s\">%s</a>", entries$anchor[i], html_inline(entries$text[i]))
    if (entries$level[i] == 2L) {
      if (sub_open) out <- c(out, "</ol>")
      if (item_open) out <- c(out, "</li>")
      out <- c(out, paste0("<li>", link))
      item_open <- TRUE
      sub_open <- FALSE
    } else {
      if (!item_open) out <- c(out, "<li>")
      if (!sub_open) out <- c(out, "<ol>")
      out <- c(out, paste0("<li>", link, "</li>"))
      item_open <- sub_open <- TRUE
    }
  }
  c("<nav class=\"contents\" id=\"contents\"><p class=\"contents-title\">Contents</p><ol>", out,
    if (sub_open) "</ol>", if (item_open) "</li>", "</ol></nav>")
}

# A table: head, body, numbers right-aligned by the page's script; an
# explore table is marked for the script (sort, filter) with data-explore.
html_table <- function(dt, explore = NULL) {
  d <- as.data.frame(dt)
  # Column by column (as.character and the escapes work on each value
  # alone), then pasted across into rows. A line may break after a comma
  # (<wbr>: no character of its own, so a copy or the page's filters see the
  # text as it is): a side such as topology=vneum,radius=1,order=FMAJ,...
  # would otherwise hold its column as wide as itself, and push the last
  # columns (ratio, p, short of) out of a 1400-pixel window.
  cells <- lapply(d, function(v) paste0("<td>", ifelse(is.na(v), "", gsub(",", ",<wbr>", html_escape(as.character(v)),
                                                                        fixed = TRUE)), "</td>"))
  rows <- if (nrow(d)) do.call(paste0, c(list("<tr>"), unname(cells), list("</tr>"))) else character()
  c("<div class=\"table\">",
    sprintf("<table%s>", if (is.null(explore)) "" else sprintf(" class=\"explore\" data-explore=\"%s\"", explore)),
    paste0("<thead><tr>", paste0("<th>", html_escape(names(d)), "</th>", collapse = ""), "</tr></thead>"),
    "<tbody>", rows, "</tbody></table></div>")
}

# The page's style sheet or script (analyze/output/report_page.css, .js).
report_page_file <- function(ext) {
  file <- file.path(Sys.getenv("NBH_ROOT", "."), "analyze", "output", paste0("report_page.", ext))
  paste(readLines(file, encoding = "UTF-8", warn = FALSE), collapse = "\n")
}
