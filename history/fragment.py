"""`analyze --history DB`: adds the analysis being written (a staged
folder) to the history, and writes what the report's History section
shows (analyze/output/history_report.R reads it):

  history.json              the entry, the entries, the database (no password), the
                            order, the methods, the entry's common shift
  history_departures.csv    the online test of every cell of this analysis (does
                            this entry depart from the recent history?): status,
                            size and interval, p; `line` for those that depart
                            (what --fail-on-change prints and fails on)
  history_violations.csv    each violated test of the analysis: since when it is
                            violated (the first entry of its latest unbroken run of
                            violations, up to this entry), and its sides' medians
                            over the last entries
  history_changes.csv       the offline change points of the cells this analysis
                            measured (archaeology), `begins_here` for those that
                            begin with it, and `line`
  history.html              the history's page (page.py)
"""
import json
import math

from history import departure, segments, series
from history.analysis_files import Analysis
from history.cell_changes import ALPHA, COLUMNS as CHANGE_COLUMNS, DEPARTURE_COLUMNS, MIN_RATIO
from history.cell_changes import CONTEXT, change_line, context_text, departure_line, find_changes, find_departures
from history.database import shown
from history.ingest import add_analysis
from history.page import write_page
from history.tables import write_csv

TREND_ENTRIES = 8
VIOLATION_COLUMNS = ("guideline", "context", "parameters", "ratio", "since", "since_archive", "violated_entries",
                     "measured_entries", "trend_a_us", "trend_b_us")
ONLINE = (f"each cell's level (the mean of the middle 60 % of its runs' log medians) against its last entries "
          f"(at most {departure.WINDOW}, since its last change point), relative to each entry's shift common to "
          f"every cell, with the history's entry-to-entry variance (moderated across cells) and this archive's own "
          f"runs: a prediction t test; Benjamini-Hochberg at {ALPHA} across the cells, size at least {MIN_RATIO}x; "
          f"a cell with fewer than {departure.MIN_EARLIER} entries before it has too few entries (docs/history.md)")
OFFLINE = (f"circular binary segmentation of each cell's levels (steps and bumps), its null simulated per length; "
           f"Benjamini-Hochberg at {ALPHA} across the cells, their parts at {ALPHA} R/m; size at least {MIN_RATIO}x; "
           f"a series of fewer than {segments.MIN_LENGTH} entries has too few (docs/history.md)")

def since(order, results):
    """(first entry of the unbroken run of violations that ends with the
    last entry of ORDER, entries in it, entries measured)."""
    measured = [e for e in order if e.id in results]
    run = []
    for e in reversed(measured):
        if results[e.id]["decision"] != "violated":
            break
        run.append(e)
    return (run[-1] if run else None), len(run), len(measured)


def context_of(test):
    return context_text(test)


def violation_rows(db, entry, by):
    mine = dict(db.query("SELECT test_id, ratio FROM test_results WHERE entry_id = ? AND decision = 'violated'",
                         (entry,)))
    if not mine:
        return []
    tests = series.read_tests(db, ids=list(mine))
    results = series.test_results(db, list(mine))
    entries = series.read_entries(db)
    rows = []
    for test_id, ratio in sorted(mine.items(), key=lambda x: -(x[1] or 0)):
        t = tests[test_id]
        order = series.ordered(entries, by, t["library"] or None)
        order = order[:[e.id for e in order].index(entry) + 1]
        first, count, measured = since(order, results[test_id])
        shown_entries = [e for e in order if e.id in results[test_id]][-TREND_ENTRIES:]
        trend = {side: ", ".join(f"{results[test_id][e.id][f'median_{side}_us']:.4g}" for e in shown_entries
                                 if results[test_id][e.id][f"median_{side}_us"] is not None) for side in "ab"}
        params = {k: v for k, v in t["params"].items() if k not in CONTEXT or k == "op"}
        rows.append({"guideline": f"{t['tag']}: {t['guideline']}" if t["tag"] else t["guideline"],
                     "context": context_of(t),
                     "parameters": ",".join(f"{k}={v}" for k, v in params.items()),
                     "ratio": f"{ratio:.3f}" if ratio is not None else "",
                     "since": first.label(by, t["library"] or None), "since_archive": first.archive_of(
                         t["library"] or None)["name"],
                     "violated_entries": count, "measured_entries": measured,
                     "trend_a_us": trend["a"], "trend_b_us": trend["b"]})
    return rows


def shown_value(value):
    """A table's value as its CSV shows it: a float to 4 significant digits (nan: empty)."""
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.4g}"
    return value


def formatted(rows, columns):
    """ROWS with their floats to 4 significant digits (nan: empty)."""
    return [{c: shown_value(r.get(c, "")) for c in columns} for r in rows]


def common_of(common):
    """The entry's common shift for history.json (None: no common shift)."""
    if common is None:
        return None
    if common.status == "too few entries":
        return {"status": common.status, "earlier": common.earlier}
    return {"status": common.status, "earlier": common.earlier, "ratio": common.ratio, "ratio_low": common.ratio_low,
            "ratio_high": common.ratio_high, "t": common.t, "df": common.df, "p": common.p}


def write_fragment(db, directory, by="date"):
    analysis = Analysis(directory, staged=True)
    source = " ".join(analysis.archives["directory"])
    entry, added = add_analysis(db, analysis, source=source)
    with db.reading():   # one snapshot for everything read below (the cells are parsed once)
        departures, common = find_departures(db, entry, by)
        for d in departures:
            d["line"] = departure_line(d) if d["status"] == "departs" else ""
        write_csv(directory / "history_departures.csv", formatted(departures, DEPARTURE_COLUMNS + ("line",)),
                  DEPARTURE_COLUMNS + ("line",))
        cell_ids = [d["cell_id"] for d in departures]
        # This analysis's cells are searched as one family; when they are
        # every cell of the history, that is the page's search too.
        every = len(cell_ids) == db.query("SELECT COUNT(*) FROM cells")[0][0]
        found = find_changes(db, by, cell_ids=None if every else cell_ids) if cell_ids else None
        changes = [dict(c) for c in found.rows] if found else []
        for c in changes:
            c["begins_here"] = "yes" if c["begins_entry"] == entry else "no"
            c["line"] = change_line(c)
        write_csv(directory / "history_changes.csv", formatted(changes, CHANGE_COLUMNS + ("begins_here", "line")),
                  CHANGE_COLUMNS + ("begins_here", "line"))
        write_csv(directory / "history_violations.csv", violation_rows(db, entry, by), VIOLATION_COLUMNS)
        entries = db.query("SELECT COUNT(*) FROM entries")[0][0]
        counts = {s: sum(d["status"] == s for d in departures) for s in ("departs", "consistent", "too few entries")}
        (directory / "history.json").write_text(json.dumps(
            {"entry": entry, "entries": entries, "database": shown(db.location), "order": by, "already": not added,
             "online": ONLINE, "offline": OFFLINE, "min_earlier": departure.MIN_EARLIER, "cells": len(departures),
             "departs": counts["departs"], "consistent": counts["consistent"], "too_few": counts["too few entries"],
             "common": common_of(common)}, indent=1) + "\n", encoding="utf-8")
        write_page(db, directory / "history.html", by, found=found if every else None)
