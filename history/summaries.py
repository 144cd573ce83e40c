"""What the page and the change detection read of every entry, written
with the entry (schema.VERDICT_COUNTS, schema.ENTRY_LEVELS): so that at
make bench's size (100 entries of 50 400 cells and 86 400 tests) the
verdict map is a read of a few thousand rows instead of a GROUP BY over
8.6 M, and every cell's levels a read of one row per entry instead of
5 M (docs/history.md#at-scale-make-bench).

  verdict_counts  per entry, guideline and context: tests, violated, holds
  entry_levels    per entry: its cells' ids, levels, run spreads and runs,
                  as little-endian int64 / float64 arrays"""
import numpy as np

CONTEXT = ("tag", "guideline", "campaign", "library", "distribution", "param_set", "deployment")


def verdict_rows(entry, tests, results):
    """The verdict_counts rows of ENTRY: TESTS ({key: row of
    ingest.TEST_COLUMNS}), RESULTS (rows whose first value is the test
    key and whose decision is at DECISION)."""
    counts = {}
    for r in results:
        t = tests[r[0]]
        context = (t[1], t[2], t[4], t[5], t[6], t[7], t[8])   # tag, guideline, campaign .. deployment
        c = counts.setdefault(context, [0, 0, 0])
        c[0] += 1
        c[1] += r[DECISION] == "violated"
        c[2] += r[DECISION] == "holds"
    return [(entry,) + context + tuple(c) for context, c in counts.items()]


DECISION = 10   # in ingest's test result rows: key, runs_a, runs_b, median_a, median_b, ratio, low, high, p, p_adj, decision


def insert_verdicts(db, rows):
    db.executemany(f"INSERT INTO verdict_counts (entry_id, {', '.join(CONTEXT)}, tests, violated, holds) "
                   f"VALUES (?, {', '.join('?' * len(CONTEXT))}, ?, ?, ?)", rows)


def insert_levels(db, entry, cell_ids, levels, spreads, runs):
    db.execute("INSERT INTO entry_levels (entry_id, cell_ids, levels, spreads, runs) VALUES (?, ?, ?, ?, ?)",
               (entry, np.asarray(cell_ids, dtype="<i8").tobytes(), np.asarray(levels, dtype="<f8").tobytes(),
                np.asarray(spreads, dtype="<f8").tobytes(), np.asarray(runs, dtype="<f8").tobytes()))


def read_levels(db):
    """(cell, entry, level, spread, runs) arrays of every entry's cells."""
    parts = []
    for entry, cells, levels, spreads, runs in db.query("SELECT entry_id, cell_ids, levels, spreads, runs "
                                                        "FROM entry_levels"):
        ids = np.frombuffer(bytes(cells), dtype="<i8")
        parts.append((ids, np.full(len(ids), entry, dtype=np.int64), np.frombuffer(bytes(levels), dtype="<f8"),
                      np.frombuffer(bytes(spreads), dtype="<f8"), np.frombuffer(bytes(runs), dtype="<f8")))
    if not parts:
        return tuple(np.zeros(0) for _ in range(5))
    return tuple(np.concatenate(p) for p in zip(*parts))


def fill(db):
    """verdict_counts and entry_levels of every entry, from test_results
    and cell_results (a history migrated from version 1)."""
    db.execute(f"INSERT INTO verdict_counts (entry_id, {', '.join(CONTEXT)}, tests, violated, holds) "
               f"SELECT r.entry_id, {', '.join('t.' + c for c in CONTEXT)}, COUNT(*), "
               "SUM(CASE WHEN r.decision = 'violated' THEN 1 ELSE 0 END), "
               "SUM(CASE WHEN r.decision = 'holds' THEN 1 ELSE 0 END) FROM test_results r JOIN tests t "
               f"ON t.id = r.test_id GROUP BY r.entry_id, {', '.join('t.' + c for c in CONTEXT)}")
    per_entry = {}
    for cell, entry, level, spread, runs in db.query("SELECT cell_id, entry_id, level, spread, runs FROM cell_results "
                                                     "WHERE level IS NOT NULL ORDER BY entry_id, cell_id"):
        per_entry.setdefault(entry, []).append((cell, level, spread if spread is not None else 0.0, runs))
    for entry, rows in per_entry.items():
        cells, levels, spreads, runs = zip(*rows)
        insert_levels(db, entry, cells, levels, spreads, runs)
