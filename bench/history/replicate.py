"""make bench (bench/bench-history): a history of one entry made into one
of COUNT entries, for the time of the history's commands at that size:
entry 1's archive, cells and tests copied as entries 2..COUNT, a day apart
and earlier (entry 1 stays the newest, as the entry `analyze --history`
adds would be), in SQL (INSERT ... SELECT). Every median and level moves
by a factor per entry (1 +- 2 %) and each level by its own noise (sd
about 2 %); one cell in a hundred is 1.2x slower in the newer half of the
entries, so that the change detection has changes to find.
python bench/history/replicate.py DB COUNT"""
import sqlite3
import sys

import numpy as np

ISO = "%Y-%m-%dT%H:%M:%SZ"


def replicate(path, count):
    rng = np.random.default_rng(1)
    with sqlite3.connect(path) as db:
        (have,) = db.execute("SELECT COUNT(*) FROM entries").fetchone()
        ids, levels, spreads, runs = db.execute("SELECT cell_ids, levels, spreads, runs FROM entry_levels "
                                                "WHERE entry_id = 1").fetchone()
        cells = np.frombuffer(ids, dtype="<i8").astype(np.int64)
        base = np.frombuffer(levels, dtype="<f8")
        for k in range(have + 1, count + 1):
            f = float(1 + rng.normal(0, 0.02))
            db.execute("INSERT INTO entries (id, added, source, analysed_by, p_thres, v_thres, hold_ratio, adjust, "
                       "assessment, created) SELECT ?, added, source, analysed_by, p_thres, v_thres, hold_ratio, "
                       "adjust, assessment, strftime(?, created, ?) FROM entries WHERE id = 1",
                       (k, ISO, f"-{k - 1} days"))
            db.execute("INSERT INTO archives (entry_id, manifest_sha256, name, directory, campaign, library, "
                       "library_version, release, configure, param_sets, environment, machine, scheduler, created, "
                       "nbhbench_commit, runs, runs_done) SELECT ?, manifest_sha256 || ?, name || ?, directory, "
                       "campaign, library, library_version, release, configure, param_sets, environment, machine, "
                       "scheduler, strftime(?, created, ?), nbhbench_commit, runs, runs_done FROM archives "
                       "WHERE entry_id = 1", (k, f"-{k}", f"-{k}", ISO, f"-{k - 1} days"))
            db.execute("INSERT INTO runs SELECT ?, run_no, (SELECT id FROM archives WHERE entry_id = ?), run_id "
                       "FROM runs WHERE entry_id = 1", (k, k))
            # Noise per cell and entry: uniform, sd 2 %, from a hash of both (the same in SQL and in
            # NumPy); the older half of the entries without the 1.2x of every hundredth cell (entry 1
            # is the newest).
            older = 1 if k > count // 2 else 0
            db.execute("INSERT INTO cell_results SELECT cell_id, ?, runs, median_us * ?, p50_us * ?, p90_us * ?, "
                       f"p99_us * ?, run_nos, run_medians_us, level + ? + {NOISE_SQL} "
                       "- CASE WHEN ? AND cell_id % 100 = 0 THEN ? ELSE 0 END, spread FROM cell_results "
                       "WHERE entry_id = 1", (k, f, f, f, f, float(np.log(f)), k, older, PLANT))
            db.execute("INSERT INTO test_results SELECT test_id, ?, runs_a, runs_b, median_a_us * ?, median_b_us * ?, "
                       "ratio, ratio_ci_low, ratio_ci_high, p_value, p_adjusted, decision, violated, extra "
                       "FROM test_results WHERE entry_id = 1", (k, f, f))
            db.execute("INSERT INTO verdict_counts SELECT ?, tag, guideline, campaign, library, distribution, "
                       "param_set, deployment, tests, violated, holds FROM verdict_counts WHERE entry_id = 1", (k,))
            levels = base + np.log(f) + noise(cells, k) - (PLANT * older) * (cells % 100 == 0)
            db.execute("INSERT INTO entry_levels VALUES (?, ?, ?, ?, ?)",
                       (k, cells.astype("<i8").tobytes(), levels.astype("<f8").tobytes(), spreads, runs))


PLANT = float(np.log(1.2))
NOISE_SQL = "0.0346 * (((cell_id * 2654435761 + ? * 40503) % 2001) / 1000.0 - 1)"


def noise(cells, k):
    """NOISE_SQL in NumPy."""
    return 0.0346 * (((cells * 2654435761 + k * 40503) % 2001) / 1000.0 - 1)


if __name__ == "__main__":
    replicate(sys.argv[1], int(sys.argv[2]))
