"""`history trend`: one cell, or one guideline, over the history's
entries: a table (printed, and trend.csv) and a plot (trend.png and
trend.pdf, drawn by plots/history_trend.R) in --out DIR.

A cell: per entry its runs, the median of its run medians, the smallest
and largest run median, P90 and P99, and where a change point begins.
A guideline: per entry its tests, violated, holds, open, and the median
and largest ratio; trend_tests.csv has every test's ratio per entry (the
plot's lines)."""
import os
import subprocess
from pathlib import Path

from gen.errors import NbhError
from history import series
from history.cell_changes import cell_text, change_line, context_text, find_changes
from history.tables import print_table, write_csv

CELL_COLUMNS = ("entry", "label", "date", "release", "archive", "runs", "median_us", "run_min_us", "run_max_us",
                "p90_us", "p99_us", "change")
GUIDELINE_COLUMNS = ("entry", "label", "date", "release", "tests", "violated", "holds", "open", "median_ratio",
                     "max_ratio")
TEST_COLUMNS = ("entry", "label", "test", "ratio", "ratio_ci_low", "ratio_ci_high", "decision")


def one_cell(db, where):
    cells = series.read_cells(db, where)
    if not cells:
        raise NbhError(f"--cell: no cell of the history has {series.params_text_of(where)}")
    if len(cells) > 1:
        names = sorted({k for _, p in cells.values() for k in p})
        differ = [n for n in names if len({p.get(n, "") for _, p in cells.values()}) > 1]
        raise NbhError(f"--cell: {len(cells)} cells of the history have {series.params_text_of(where)}; they differ "
                       f"in {', '.join(differ)}: name those too")
    return next(iter(cells.items()))


def fmt(value, digits=4):
    return "" if value is None else f"{value:.{digits}g}"


def cell_trend(db, args, out):
    where = series.parse_where(args.cell)
    with db.reading():
        series.check_names(db, where, "cells")
        cell_id, (key, params) = one_cell(db, where)
        library = params.get("library", "")
        order = series.ordered(series.read_entries(db), args.by, library)
        results = series.cell_results(db, [cell_id]).get(cell_id, {})
        found = find_changes(db, args.by, alpha=args.alpha, min_ratio=args.min_ratio, cell_ids=[cell_id], same=(),
                             common=args.common)
        changes = {c["begins_entry"]: c for c in found.rows}
    rows = []
    for e in order:
        r = results.get(e.id)
        if r is None:
            continue
        runs = r["run_medians"]
        c = changes.get(e.id)
        rows.append({"entry": e.id, "label": e.label(args.by, library), "date": e.created,
                     "release": e.release(library), "archive": e.archive_of(library)["name"], "runs": r["runs"],
                     "median_us": fmt(r["median_us"]), "run_min_us": fmt(min(runs) if runs else None),
                     "run_max_us": fmt(max(runs) if runs else None), "p90_us": fmt(r["p90_us"]),
                     "p99_us": fmt(r["p99_us"]),
                     "change": "" if c is None else f"{c['ratio']:.3f}x {c['direction']} (p = {c['p']:.3g})"})
    title = f"{context_text(params)} {cell_text(params)}"
    return rows, CELL_COLUMNS, title, [change_line(c) for c in changes.values()]


def guideline_trend(db, args, out):
    where = series.parse_where(args.where)
    with db.reading():
        series.check_names(db, where, "tests")
        tests = series.read_tests(db, where, args.guideline)
        if not tests:
            raise NbhError(f"--guideline: no test of the history is of '{args.guideline}'"
                           + (f" with {args.where}" if args.where else ""))
        results = series.test_results(db, list(tests))
        entries = series.read_entries(db)
    libraries = {t["library"] for t in tests.values()}
    library = next(iter(libraries)) if len(libraries) == 1 else None
    order = series.ordered(entries, args.by, library)
    rows, lines = [], []
    for e in order:
        here = [results[t][e.id] for t in tests if e.id in results.get(t, {})]
        if not here:
            continue
        ratios = sorted(r["ratio"] for r in here if r["ratio"] is not None)
        count = {d: sum(r["decision"] == d for r in here) for d in ("violated", "holds", "open")}
        label = e.label(args.by, library)
        rows.append({"entry": e.id, "label": label, "date": e.created, "release": e.release(library),
                     "tests": len(here), **count,
                     "median_ratio": fmt(ratios[len(ratios) // 2] if ratios else None),
                     "max_ratio": fmt(ratios[-1] if ratios else None)})
        for t in tests:
            r = results.get(t, {}).get(e.id)
            if r:
                lines.append({"entry": e.id, "label": label, "test": t, "ratio": fmt(r["ratio"], 6),
                              "ratio_ci_low": fmt(r["ratio_ci_low"], 6), "ratio_ci_high": fmt(r["ratio_ci_high"], 6),
                              "decision": r["decision"]})
    write_csv(out / "trend_tests.csv", lines, TEST_COLUMNS)
    first = next(iter(tests.values()))
    title = f"{first['tag'] + ': ' if first['tag'] else ''}{first['guideline']}"
    if args.where:
        title += f" ({args.where})"
    return rows, GUIDELINE_COLUMNS, title, []


def draw(kind, out, title, by):
    root = Path(os.environ.get("NBH_ROOT", Path(__file__).resolve().parents[1]))
    done = subprocess.run(["Rscript", "--vanilla", str(root / "plots" / "history_trend.R"), kind, str(out), title, by],
                          capture_output=True, text=True, env={**os.environ, "NBH_ROOT": str(root)})
    if done.returncode != 0:
        said = [line for line in done.stderr.splitlines() if line.strip()]
        raise NbhError(f"{out / 'trend.png'}: the plot failed: {said[-1] if said else done.returncode}", 1)


def trend(db, args):
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise NbhError(f"--out: {out} is not a directory")
    out.mkdir(parents=True, exist_ok=True)
    kind = "cell" if args.cell else "guideline"
    rows, columns, title, lines = (cell_trend if args.cell else guideline_trend)(db, args, out)
    write_csv(out / "trend.csv", rows, columns)
    print(title)
    print_table(rows, columns)
    for line in lines:
        print(f"change: {line}")
    if not args.no_plot:
        draw(kind, out, title, args.by)
        print((out / "trend.png").resolve())
    return 0
