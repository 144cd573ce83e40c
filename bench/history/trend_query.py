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
    times = []
    for _ in range(tries):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def main(location):
    db = open_history(location)
    try:
        (cell_id, key, params), = db.query("SELECT id, key, params FROM cells ORDER BY id LIMIT 1")
        where = json.loads(params)
        sql, rows = timed(lambda: db.query("SELECT entry_id, median_us, run_medians_us FROM cell_results "
                                           "WHERE cell_id = ?", (cell_id,)))
        print(f"one cell's series, SQL alone: {1000 * sql:.2f} ms ({len(rows)} entries)")
        whole, _ = timed(lambda: series.cell_results(db, list(series.read_cells(db, where))))
        print(f"one cell's series with its selection among all cells (what history trend --cell reads): "
              f"{1000 * whole:.0f} ms")
        guideline, _ = timed(lambda: series.test_results(db, list(series.read_tests(db, guideline="GL4",
                                                                                    where={"deployment": "10x16"}))))
        tests = len(series.read_tests(db, guideline="GL4", where={"deployment": "10x16"}))
        print(f"one guideline at one deployment ({tests} tests) over every entry (history trend --guideline): "
              f"{1000 * guideline:.0f} ms")
    finally:
        db.close()


if __name__ == "__main__":
    main(sys.argv[1])
