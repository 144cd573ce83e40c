# A report is a list of blocks (heading, paragraph, bullet list, table,
# figure) written out twice: as Markdown (report.md, figures linked) and as
# one self-contained HTML file (report.html, figures embedded as base64
# data URIs, so it opens anywhere without its folder).

heading <- function(text, level = 2L) list(kind = "heading", text = text, level = level)
paragraph <- function(...) list(kind = "paragraph", text = paste0(...))
bullets <- function(items) list(kind = "bullets", items = as.character(items))
table_block <- function(dt) list(kind = "table", dt = dt)
figure <- function(png, caption) list(kind = "figure", png = png, caption = caption)

md_escape <- function(x) gsub("|", "\\|", gsub("\n", " ", x, fixed = TRUE), fixed = TRUE)

to_markdown <- function(blocks) {
  out <- unlist(lapply(blocks, function(b) {
    switch(b$kind,
      heading = c(paste(strrep("#", b$level), b$text), ""),
      paragraph = c(b$text, ""),
      bullets = c(if (length(b$items)) paste("-", md_escape(b$items)) else character(), ""),
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
  paste(out, collapse = "\n")
}

html_escape <- function(x) {
  x <- gsub("&", "&amp;", x, fixed = TRUE)
  x <- gsub("<", "&lt;", x, fixed = TRUE)
  gsub(">", "&gt;", x, fixed = TRUE)
}

# Inline `code` spans and **bold** of the Markdown paragraphs, in HTML.
html_inline <- function(x) {
  x <- html_escape(x)
  x <- gsub("`([^`]*)`", "<code>\\1</code>", x)
  gsub("\\*\\*([^*]*)\\*\\*", "<strong>\\1</strong>", x)
}

to_html <- function(blocks, title, dir) {
  body <- unlist(lapply(blocks, function(b) {
    switch(b$kind,
      heading = sprintf("<h%d>%s</h%d>", b$level, html_inline(b$text), b$level),
      paragraph = sprintf("<p>%s</p>", html_inline(b$text)),
      bullets = c("<ul>", sprintf("<li>%s</li>", html_inline(b$items)), "</ul>"),
      table = {
        d <- as.data.frame(b$dt)
        rows <- if (nrow(d)) vapply(seq_len(nrow(d)), function(i) {
          cells <- vapply(d[i, , drop = FALSE], function(v) ifelse(is.na(v), "", html_escape(as.character(v))), "")
          paste0("<tr>", paste0("<td>", cells, "</td>", collapse = ""), "</tr>")
        }, "") else character()
        c("<table>", paste0("<tr>", paste0("<th>", html_escape(names(d)), "</th>", collapse = ""), "</tr>"),
          rows, "</table>")
      },
      figure = {
        png <- file.path(dir, b$png)
        src <- paste0("data:image/png;base64,", jsonlite::base64_enc(readBin(png, "raw", file.size(png))))
        sprintf("<figure><img src=\"%s\" alt=\"%s\"><figcaption>%s</figcaption></figure>", src,
                html_escape(b$caption), html_escape(b$caption))
      })
  }))
  style <- paste(
    "body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}",
    "table{border-collapse:collapse;margin:1em 0;font-size:0.9em}",
    "td,th{border:1px solid #ccc;padding:0.25em 0.6em;text-align:left;vertical-align:top}",
    "th{background:#f0f0f0}figure{margin:1.5em 0}img{max-width:100%;border:1px solid #ddd}",
    "figcaption{font-size:0.85em;color:#444}code{background:#f4f4f4;padding:0 0.2em}")
  paste(c("<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
          sprintf("<title>%s</title>", html_escape(title)), sprintf("<style>%s</style>", style),
          "</head><body>", body, "</body></html>"), collapse = "\n")
}
