"""make bench (bench/bench-history): the change points on simulated series
whose answer is known. Each entry's 10 run medians around 10 us: a level
per entry (lognormal, sd 5 %) and per run (sd 2 %). Without a change, a
series with any change point is a false alert (min_ratio 1: the run
spread alone guards); with a 1.3x step in the middle, whether the change
point is found at its place. 200 series each, seeded.
python bench/history/simulated_series.py"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from history.changes import change_points  # noqa: E402

SERIES = 200


def series(rng, count, step_at=None, factor=1.0, between=0.05, within=0.02, runs=10):
    out = []
    for i in range(count):
        level = np.log(10) + rng.normal(0, between) + (np.log(factor) if step_at is not None and i >= step_at else 0)
        out.append(np.exp(level + rng.normal(0, within, runs)))
    return out


def main():
    rng = np.random.default_rng(2026)
    for count in (8, 20, 100):
        clean = sum(bool(change_points(series(rng, count), f"clean {count} {i}", min_ratio=1.0))
                    for i in range(SERIES))
        at = count // 2
        found = sum(any(c.index == at for c in change_points(series(rng, count, at, 1.3), f"step {count} {i}"))
                    for i in range(SERIES))
        print(f"simulated, {count} entries: false alerts {clean} of {SERIES} series without change "
              f"({100 * clean / SERIES:.1f} per 100); a 1.3x step at entry {at + 1} found there in {found} of "
              f"{SERIES} ({100 * found / SERIES:.1f} per 100)")


if __name__ == "__main__":
    main()
