"""make bench (bench/bench-history): the time of trend queries on a
history: one cell's series and one guideline's (with the selection of the
cell or the guideline among all), the SQL alone and what `history trend`
reads, the median of 5 tries each.
python bench/history/trend_query.py DB"""
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from history import series  # noqa: E402
from history.database import open_history  # noqa: E402


def timed(function, tries=5):
    """(median wall seconds, median CPU seconds, the result) of TRIES calls."""
    walls, cpus = [], []
    for _ in range(tries):
        start, cpu = time.perf_counter(), time.process_time()
        result = function()
        walls.append(time.perf_counter() - start)
        cpus.append(time.process_time() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def main(location):
    db = open_history(location)
    try:
        (cell_id, key, params), = db.query("SELECT id, key, params FROM cells ORDER BY id LIMIT 1")
        where = json.loads(params)
        wall, cpu, rows = timed(lambda: db.query("SELECT entry_id, median_us, run_medians_us FROM cell_results "
                                                 "WHERE cell_id = ?", (cell_id,)))
        print(f"one cell's series, SQL alone: {1000 * wall:.2f} ms ({len(rows)} entries; {1000 * cpu:.2f} ms CPU)")
        wall, cpu, _ = timed(lambda: series.cell_results(db, list(series.read_cells(db, where))))
        print(f"one cell's series with its selection among all cells (what history trend --cell reads): "
              f"{1000 * wall:.0f} ms ({1000 * cpu:.0f} ms CPU)")
        chosen = {"guideline": "GL4", "where": {"deployment": "10x16"}}
        wall, cpu, _ = timed(lambda: series.test_results(db, list(series.read_tests(db, **chosen))))
        tests = len(series.read_tests(db, **chosen))
        print(f"one guideline at one deployment ({tests} tests) over every entry (history trend --guideline): "
              f"{1000 * wall:.0f} ms ({1000 * cpu:.0f} ms CPU)")
    finally:
        db.close()


if __name__ == "__main__":
    main(sys.argv[1])
