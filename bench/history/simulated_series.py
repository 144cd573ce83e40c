"""make bench (bench/bench-history): the change detection on simulated
histories whose answer is known. Each entry's 10 run medians around
10 us: a shift per entry common to every cell (sd 5 %), one per cell and
entry (sd 3 %), per run (sd 15 %: this machine's runs). 200 histories of 24
cells each, seeded.

Offline (cell_changes.search_cells on the cells' levels less their share
of the common shift, as find_changes does): cells with any change point
without a change; a 1.5x step in the middle of one cell found at its
place; a 1.5x bump of 4 entries found at both ends. Online
(departure.entry_departures): entries with any departing cell without a
change, and one cell 1.2x and 1.5x slower in the newest entry found.
python bench/history/simulated_series.py"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from history import common_shift  # noqa: E402
from history.cell_changes import search_cells  # noqa: E402
from history.departure import Baseline, entry_departures, level_and_spread  # noqa: E402

HISTORIES = 200
CELLS = 24


def history(rng, count, plant=None):
    """(levels, spreads) arrays (CELLS, COUNT); PLANT(levels) moves some."""
    common = rng.normal(0, 0.05, count)
    medians = np.exp(np.log(10) + common[None, :, None] + rng.normal(0, 0.03, (CELLS, count, 1))
                     + rng.normal(0, 0.15, (CELLS, count, 10)))
    pairs = [[level_and_spread(medians[c, e]) for e in range(count)] for c in range(CELLS)]
    levels = np.array([[p[0] for p in row] for row in pairs])
    spreads = np.array([[p[1] for p in row] for row in pairs])
    if plant:
        plant(levels)
    return levels, spreads


def own(levels):
    series = [(list(range(levels.shape[1])), levels[c]) for c in range(CELLS)]
    shifts = common_shift.entry_shifts(series)
    return [r for r, *_ in common_shift.residual_series(series, shifts)]


def offline(rng, count):
    clean = step = bump = 0
    for _ in range(HISTORIES):
        kept, _, _ = search_cells(own(history(rng, count)[0]), 0.05)
        clean += sum(bool(k) for k in kept)
        at = count // 2

        def stepped(x):
            x[0, at:] += np.log(1.5)
        kept, _, _ = search_cells(own(history(rng, count, stepped)[0]), 0.05)
        step += at in {p for s, _ in kept[0] for p in s.points()}
        start = count // 3

        def bumped(x):
            x[0, start:start + 4] += np.log(1.5)
        kept, _, _ = search_cells(own(history(rng, count, bumped)[0]), 0.05)
        points = {p for s, _ in kept[0] for p in s.points()}
        bump += start in points and start + 4 in points
    return clean, step, bump


def online(rng, count, factor):
    fired = found = 0
    for _ in range(HISTORIES):
        levels, spreads = history(rng, count + 1)
        series = [(list(range(count)), levels[c, :count]) for c in range(CELLS)]
        slopes = [s for _, *s in common_shift.residual_series(series, common_shift.entry_shifts(series))]
        start = max(0, count - 20)
        baselines = [Baseline(list(range(start, count)), levels[c, start:count], spreads[c, start:count],
                              np.full(count - start, 10), *slopes[c]) for c in range(CELLS)]
        clean, _ = entry_departures(baselines, levels[:, count], spreads[:, count], [10] * CELLS, 0.05, 1.03)
        fired += any(d.status == "departs" for d in clean)
        new = levels[:, count].copy()
        new[0] += np.log(factor)
        planted, _ = entry_departures(baselines, new, spreads[:, count], [10] * CELLS, 0.05, 1.03)
        found += planted[0].status == "departs"
    return fired, found


def main():
    rng = np.random.default_rng(2026)
    for count in (8, 20, 100):
        clean, step, bump = offline(rng, count)
        cells = HISTORIES * CELLS
        print(f"simulated, {count} entries of {CELLS} cells, {HISTORIES} histories: offline, cells with a change point "
              f"without a change {clean} of {cells} ({100 * clean / cells:.2f} per 100); a 1.5x "
              f"step in the middle found there in {step} of {HISTORIES}; a 1.5x bump of 4 entries found at both "
              f"ends in {bump} of {HISTORIES}")
    for count in (5, 10, 20):
        for factor in (1.2, 1.5):
            fired, found = online(rng, count, factor)
            print(f"simulated, {count} entries before the newest: online, clean entries with a departing cell "
                  f"{fired} of {HISTORIES}; one cell {factor}x slower in the newest found in {found} of {HISTORIES}")


if __name__ == "__main__":
    main()
