"""The results history (SPEC 7.7, docs/history.md): every analysis in a
database, SQLite by default (one file) or PostgreSQL, with each archive's
provenance, every cell's run medians and percentiles and every test's
ratio, interval, p and decision; trends per cell and guideline, change
points per cell series, and a self-contained page.

  database.py     connecting (SQLite file or postgresql:// URL), transactions, the schema version
  schema.py       the tables, and the migrations of older schemas (migrations.py)
  archive_files.py  an archive's identity (MANIFEST.sha256) and provenance, checked
  analysis_files.py an analysis's tables (cells.csv, run_medians.csv, tests.csv, ...)
  keys.py         a cell's and a test's identity across analyses (campaign, library, distribution)
  ingest.py       adding an analysis (or an archive, analysed first)
  series.py       the entries in order (date or release) and the series of a cell or test
  common_shift.py what moves every cell of an entry, and each cell's sensitivity to it
  segments.py     offline change points: circular binary segmentation
  departure.py    online: does the new entry depart from its recent history
  distributions.py  Student's t, digamma and trigamma in NumPy
  cell_changes.py both on the history's cells, as the commands show them
  trend.py        one cell or one guideline over the entries: a table and a plot
  fragment.py     what `analyze --history` puts into the report
  page.py         the history page (history.html), with page.js and page.css
  cli.py          `nbhbench history add|list|trend|changes|page`
"""
