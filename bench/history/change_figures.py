"""What the history's change points find on real archives (make bench,
bench/bench-history): python bench/history/change_figures.py PLANTED_DB
CLEAN_DB SLOW_FROM. On the planted series: for each planted cell
(neighbor_alltoall at 1024 bytes), where its change point begins, its
size and p; the change points of the other cells. On the clean series:
false alerts per 100 cell series (a series with any change point), at
the default size threshold and at 1.10x."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from history import series  # noqa: E402
from history.cell_changes import find_changes  # noqa: E402
from history.database import open_history  # noqa: E402


def planted(params):
    return params.get("op") == "neighbor_alltoall" and params.get("msize") == "1024"


def report_planted(location, slow_from):
    db = open_history(location)
    try:
        cells = series.read_cells(db)
        changes = find_changes(db)
        ordered = series.ordered(series.read_entries(db))
    finally:
        db.close()
    entries = len(ordered)
    order = {e.id: i + 1 for i, e in enumerate(ordered)}
    wanted = {c for c, (_, p) in cells.items() if planted(p)}
    print(f"planted series: {entries} archives of the demo, the PMPI slowdown from archive {slow_from} on; "
          f"{len(cells)} cell series, {len(wanted)} planted (neighbor_alltoall, 1024 B)")
    found_at = {}
    for c in changes:
        if c["cell_id"] in wanted:
            found_at.setdefault(c["cell_id"], []).append(c)
    for cell in sorted(wanted, key=lambda c: cells[c][0]):
        text = cells[cell][1].get("topology", "") + " " + cells[cell][1].get("order", "")
        hits = found_at.get(cell, [])
        where = ", ".join(f"archive {order[c['begins_entry']]} ({c['ratio']:.2f}x, p = {c['p']:.3f}, "
                          f"q = {c['q']:.3g})" for c in hits) or "none"
        print(f"  planted cell {text.strip()}: change point at {where}")
    hits = sum(any(order[c["begins_entry"]] == slow_from for c in found_at.get(cell, [])) for cell in wanted)
    print(f"  found at archive {slow_from}: {hits} of {len(wanted)} planted cells")
    others = [c for c in changes if c["cell_id"] not in wanted]
    print(f"  change points of the {len(cells) - len(wanted)} other cells: {len(others)} "
          f"(in {len({c['cell_id'] for c in others})} series)")
    for c in others:
        print(f"    {c['op']} {c['cell']}: archive {order[c['begins_entry']]}, {c['ratio']:.2f}x, p = {c['p']:.3f}")


def report_clean(location):
    db = open_history(location)
    try:
        cells = len(series.read_cells(db))
        entries = len(series.read_entries(db))
        for ratio in (1.03, 1.10):
            changes = find_changes(db, min_ratio=ratio)
            alerted = len({c["cell_id"] for c in changes})
            print(f"clean series: {entries} archives of the demo, {cells} cell series, size >= {ratio}x: "
                  f"{len(changes)} change point(s) in {alerted} series = {100 * alerted / cells:.1f} false alerts "
                  f"per 100 series (Perfherder: 12.5 per 100 alert groups)")
    finally:
        db.close()


if __name__ == "__main__":
    report_planted(sys.argv[1], int(sys.argv[3]))
    report_clean(sys.argv[2])
