"""`analyze --history DB`: adds the analysis being written (a staged
folder) to the history, and writes what the report's History section
shows (analyze/output/history_report.R reads it):

  history.json             the entry, the entries, the database, the order, the method
  history_violations.csv   each violated test of the analysis: since when it is
                           violated (the first entry of its latest unbroken run of
                           violations, up to this entry), and its sides' medians
                           over the last entries
  history_changes.csv      every change point of the cells this analysis measured,
                           `begins_here` for those that begin with it, and `line`
  history.html             the history's page (page.py)
"""
import json

from history import series
from history.analysis_files import Analysis
from history.cell_changes import COLUMNS as CHANGE_COLUMNS
from history.cell_changes import change_line, find_changes
from history.changes import ALPHA, MIN_RATIO, PERMUTATIONS
from history.database import shown
from history.ingest import add_analysis
from history.page import write_page
from history.tables import write_csv

TREND_ENTRIES = 8
VIOLATION_COLUMNS = ("guideline", "context", "parameters", "ratio", "since", "since_archive", "violated_entries",
                     "measured_entries", "trend_a_us", "trend_b_us")
METHOD = (f"E-Divisive on each cell's entries (the median of their run medians), with a permutation test "
          f"({PERMUTATIONS} shuffles of the entries); a change point has p <= {ALPHA} and changes the median by at "
          f"least {MIN_RATIO}x and by more than the entries' run-to-run spread (docs/history.md)")


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
    return " ".join(x for x in (test["library"], test["param_set"], test["deployment"]) if x)


def violation_rows(db, entry, by):
    tests = series.read_tests(db)
    mine = dict(db.query("SELECT test_id, ratio FROM test_results WHERE entry_id = ? AND decision = 'violated'",
                         (entry,)))
    if not mine:
        return []
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
        params = {k: v for k, v in t["params"].items() if k not in ("library", "param_set", "deployment", "nprocs")}
        rows.append({"guideline": f"{t['tag']}: {t['guideline']}" if t["tag"] else t["guideline"],
                     "context": context_of(t),
                     "parameters": ",".join(f"{k}={v}" for k, v in params.items()),
                     "ratio": f"{ratio:.3f}" if ratio is not None else "",
                     "since": first.label(by, t["library"] or None), "since_archive": first.archive_of(
                         t["library"] or None)["name"],
                     "violated_entries": count, "measured_entries": measured,
                     "trend_a_us": trend["a"], "trend_b_us": trend["b"]})
    return rows


def write_fragment(db, directory, by="date"):
    analysis = Analysis(directory, staged=True)
    source = " ".join(analysis.archives["directory"])
    entry, added = add_analysis(db, analysis, source=source)
    cell_ids = [r[0] for r in db.query("SELECT cell_id FROM cell_results WHERE entry_id = ?", (entry,))]
    changes = find_changes(db, by, cell_ids=cell_ids) if cell_ids else []
    for c in changes:
        c["begins_here"] = "yes" if c["begins_entry"] == entry else "no"
        c["line"] = change_line(c)
        for k in ("before_us", "after_us"):
            c[k] = f"{c[k]:.4g}"
        c["ratio"] = f"{c['ratio']:.3f}"
        c["q"] = f"{c['q']:.3g}"
        c["p"] = f"{c['p']:.3g}"
        c["run_spread"] = f"{c['run_spread']:.3g}"
    write_csv(directory / "history_changes.csv", changes, CHANGE_COLUMNS + ("begins_here", "line"))
    write_csv(directory / "history_violations.csv", violation_rows(db, entry, by), VIOLATION_COLUMNS)
    entries = db.query("SELECT COUNT(*) FROM entries")[0][0]
    (directory / "history.json").write_text(json.dumps(
        {"entry": entry, "entries": entries, "database": shown(db.location), "order": by, "already": not added,
         "method": METHOD}, indent=1) + "\n", encoding="utf-8")
    write_page(db, directory / "history.html", by)
