"""make bench (bench/bench-history): what the history's change detection
does on a real clean history (the demo campaign run again and again on
this machine, each archive an entry), through the code the commands use
(cell_changes.find_departures, find_changes), with steps and bumps
planted into a copy of it (a cell's level moved by a factor in the
history's own tables).

python bench/history/real_archives.py HISTORY OUT [--quick]

writes to OUT:
  online.csv   factor,position,entry,cell,earlier,status,ratio,p_adjusted: the online test
               of each entry with at least departure.MIN_EARLIER entries before it, of every
               cell (factor 1: the clean entry), and with each cell in turn FACTOR times
               slower in that entry alone (1.2, 1.5): does the entry that brings it depart?
  offline.csv  factor,cell,start,end,found_start,found_end,points: the change points of
               every cell of the clean history (factor 1: none planted), and with each cell
               in turn FACTOR times slower for 4 entries (a bump) starting at START
  summary.txt  the rates, as printed
--quick: fewer positions and starts (the test on real archives)."""
import csv
import math
import shutil
import sqlite3
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from history import common_shift, departure, segments, series  # noqa: E402
from history.cell_changes import ALPHA, find_changes, find_departures  # noqa: E402
from history.database import open_history  # noqa: E402

FACTORS = (1.2, 1.5)
BUMP = 4


class Planted:
    """A copy of the history whose levels can be moved and put back."""

    def __init__(self, location):
        self.dir = tempfile.mkdtemp(prefix="nbh-real-")
        self.path = Path(self.dir) / "history.db"
        shutil.copy(location, self.path)
        self.db = open_history(str(self.path))
        self.writer = sqlite3.connect(self.path, isolation_level=None)

    def move(self, cell, entries, factor):
        """CELL's level FACTOR times in ENTRIES: in cell_results and in the
        entries' summaries (entry_levels, what the change detection reads)."""
        shift = math.log(factor)
        self.writer.execute("BEGIN")
        self.writer.executemany("UPDATE cell_results SET level = level + ? WHERE cell_id = ? AND entry_id = ?",
                                [(shift, cell, e) for e in entries])
        for e in entries:
            ids, levels = self.writer.execute("SELECT cell_ids, levels FROM entry_levels WHERE entry_id = ?",
                                              (e,)).fetchone()
            levels = np.frombuffer(levels, dtype="<f8").copy()
            levels[np.frombuffer(ids, dtype="<i8") == cell] += shift
            self.writer.execute("UPDATE entry_levels SET levels = ? WHERE entry_id = ?", (levels.tobytes(), e))
        self.writer.execute("COMMIT")

    def close(self):
        self.db.close()
        self.writer.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def cell_names(db):
    with db.reading():
        return {c: key for c, (key, _) in series.read_cells(db).items()}


def order_of(db):
    with db.reading():
        return [e.id for e in series.ordered(series.read_entries(db), "date")]


def online(history, positions, out):
    names = cell_names(history.db)
    order = order_of(history.db)
    rows = []
    for p in positions:
        entry = order[p]
        clean, _ = find_departures(history.db, entry)
        for d in clean:
            rows.append({"factor": 1.0, "position": p + 1, "entry": entry, "cell": d["key"], "earlier": d["earlier"],
                         "status": d["status"], "ratio": d["ratio"], "p_adjusted": d["p_adjusted"]})
        for factor in FACTORS:
            for cell in sorted(names):
                history.move(cell, [entry], factor)
                found, _ = find_departures(history.db, entry)
                history.move(cell, [entry], 1 / factor)
                d = next(x for x in found if x["cell_id"] == cell)
                rows.append({"factor": factor, "position": p + 1, "entry": entry, "cell": d["key"],
                             "earlier": d["earlier"], "status": d["status"], "ratio": d["ratio"],
                             "p_adjusted": d["p_adjusted"]})
    write(out / "online.csv", rows)
    return rows


def offline(history, starts, out):
    names = cell_names(history.db)
    order = order_of(history.db)
    rows = []
    clean = find_changes(history.db).rows
    for cell in sorted(names):
        points = sorted(order.index(c["begins_entry"]) for c in clean if c["cell_id"] == cell)
        rows.append({"factor": 1.0, "cell": names[cell], "start": "", "end": "", "found_start": "", "found_end": "",
                     "points": " ".join(str(p + 1) for p in points)})
    for factor in FACTORS:
        for cell in sorted(names):
            for start in starts:
                entries = order[start:start + BUMP]
                history.move(cell, entries, factor)
                found = find_changes(history.db).rows
                history.move(cell, entries, 1 / factor)
                points = sorted(order.index(c["begins_entry"]) for c in found if c["cell_id"] == cell)
                rows.append({"factor": factor, "cell": names[cell], "start": start + 1, "end": start + BUMP + 1,
                             "found_start": start in points, "found_end": start + BUMP in points,
                             "points": " ".join(str(p + 1) for p in points)})
    write(out / "offline.csv", rows)
    return rows


def oracle_power(db, factor, alpha=ALPHA):
    """What a test that knew each cell's noise could do: the mean over the
    cells of the power to flag one cell FACTOR times slower, where the
    baseline is exact and the cell's own sd is known (the sd of its levels
    over the whole history less each entry's common shift, as the online
    test defines it: common_shift.entry_shifts), two-sided at alpha / m for
    m cells (the false discovery rate's level for one departing cell among
    m) and at alpha per cell. (per entry, per cell)"""
    from statistics import NormalDist
    with db.reading():
        data = series.cell_series(db, series.read_cells(db), series.read_entries(db))
    cells = [(data[c].entry_ids, data[c].levels) for c in sorted(data)]
    levels, entries = common_shift.level_matrix(cells)
    shifts = common_shift.entry_shifts(cells)
    own = levels - np.nanmedian(levels, axis=1, keepdims=True) - np.array([shifts[e] for e in entries.tolist()])
    sd = np.nanstd(own, axis=1, ddof=1)
    normal = NormalDist()
    step = math.log(factor)
    return tuple(float(np.mean([normal.cdf(step / s - normal.inv_cdf(1 - level / 2)) for s in sd]))
                 for level in (alpha / len(cells), alpha))


def write(path, rows):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def rate(k, n):
    return f"{k} of {n} ({100 * k / n:.1f} per 100)" if n else "none"


def main(location, out, quick=False):
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    history = Planted(location)
    try:
        entries = len(order_of(history.db))
        cells = len(cell_names(history.db))
        first = departure.MIN_EARLIER
        positions = list(range(first, entries))
        starts = list(range(segments.MIN_PART, entries - BUMP - segments.MIN_PART + 1))
        if quick:
            positions, starts = positions[::4], starts[::4]
        on = online(history, positions, out)
        off = offline(history, starts, out)
    finally:
        history.close()
    lines = [f"real clean history: {entries} entries (archives of the demo campaign), {cells} cells"]
    clean = [r for r in on if r["factor"] == 1.0]
    additions = {r["position"] for r in clean}
    fired = {r["position"] for r in clean if r["status"] == "departs"}
    lines.append(f"online, clean: {rate(sum(r['status'] == 'departs' for r in clean), len(clean))} cell tests depart; "
                 f"{rate(len(fired), len(additions))} entries with any departing cell "
                 f"(entries {min(additions)}-{max(additions)}, {first} or more before each)")
    for factor in FACTORS:
        planted = [r for r in on if r["factor"] == factor]
        lines.append(f"online, one cell {factor}x slower in the entry that brings it: departs in "
                     f"{rate(sum(r['status'] == 'departs' for r in planted), len(planted))} planted series")
    db = open_history(str(location))
    try:
        per_entry, per_cell = oracle_power(db, 1.2)
    finally:
        db.close()
    lines.append(f"online, 1.2x: a test that knew each cell's own sd (the baseline exact) would flag "
                 f"{100 * per_entry:.1f} per 100 at this false discovery rate, {100 * per_cell:.1f} per 100 at "
                 f"0.05 per cell")
    clean_off = [r for r in off if r["factor"] == 1.0]
    lines.append(f"offline, clean: {rate(sum(bool(r['points']) for r in clean_off), len(clean_off))} cells "
                 f"with a change point")
    for factor in FACTORS:
        bumps = [r for r in off if r["factor"] == factor]
        both = sum(r["found_start"] and r["found_end"] for r in bumps)
        either = sum(r["found_start"] or r["found_end"] for r in bumps)
        lines.append(f"offline, one cell {factor}x slower for {BUMP} entries: both ends found in "
                     f"{rate(both, len(bumps))} bumps, either end in {rate(either, len(bumps))}")
    (out / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], "--quick" in sys.argv[3:])
