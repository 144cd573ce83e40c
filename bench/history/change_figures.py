"""What the history's change points find on real archives (make bench,
bench/bench-history): python bench/history/change_figures.py PLANTED_DB
CLEAN_DB SLOW_FROM. On the planted series: for each planted cell
(neighbor_alltoall at 1024 bytes), where its change point begins, its
size and p; the change points of the other cells. On the clean series:
false alerts per 100 cell series (a series with any change point), at
the default size threshold and at 1.10x."""
import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from history import series  # noqa: E402
from history.cell_changes import find_changes  # noqa: E402
from history.database import open_history  # noqa: E402


def binomial_cdf(k, n, p):
    return sum(math.comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(k + 1))


def exact_interval(k, n, level=0.95):
    """Clopper-Pearson interval of a rate k / n (bisection on the binomial)."""
    tail = (1 - level) / 2

    def solve(f):
        low, high = 0.0, 1.0
        for _ in range(60):
            mid = (low + high) / 2
            low, high = (mid, high) if f(mid) else (low, mid)
        return low
    lower = 0.0 if k == 0 else solve(lambda p: 1 - binomial_cdf(k - 1, n, p) < tail)
    upper = 1.0 if k == n else solve(lambda p: binomial_cdf(k, n, p) > tail)
    return lower, upper


def rate_text(k, n):
    low, high = exact_interval(k, n)
    return f"{k} of {n} series = {100 * k / n:.1f} per 100 (95 % interval {100 * low:.1f}-{100 * high:.1f})"


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
    alerted = len({c["cell_id"] for c in others})
    print(f"  change points of the {len(cells) - len(wanted)} other cells (false alerts): {len(others)}, "
          f"{rate_text(alerted, len(cells) - len(wanted))}")
    for c in others:
        print(f"    {c['op']} {c['cell']}: archive {order[c['begins_entry']]}, {c['ratio']:.2f}x, p = {c['p']:.3f}, "
              f"run spread {c['run_spread']:.3f}x")
    return alerted, len(cells) - len(wanted)


def report_clean(location):
    db = open_history(location)
    try:
        cells = len(series.read_cells(db))
        entries = len(series.read_entries(db))
        changes = find_changes(db)
    finally:
        db.close()
    alerted = len({c["cell_id"] for c in changes})
    print(f"clean series: {entries} archives of the demo, {cells} cell series: {len(changes)} change point(s), "
          f"false alerts {rate_text(alerted, cells)}")
    for c in changes:
        print(f"    {c['op']} {c['cell']}: {c['ratio']:.2f}x, p = {c['p']:.3f}, run spread {c['run_spread']:.3f}x")
    return alerted, cells


if __name__ == "__main__":
    planted_alerts = report_planted(sys.argv[1], int(sys.argv[3]))
    clean_alerts = report_clean(sys.argv[2])
    k, n = planted_alerts[0] + clean_alerts[0], planted_alerts[1] + clean_alerts[1]
    print(f"false alerts, both series' unplanted cells: {rate_text(k, n)} (Perfherder: 12.5 of 100 alert groups)")
