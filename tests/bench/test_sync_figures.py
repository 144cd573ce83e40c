"""bench/sync_figures.py's per-round table (issue 37: make bench prints the
clock start's cost and skew per round): tiny preparation tables whose
answer is known."""
import sys
from pathlib import Path

import pandas as pd
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
import sync_figures  # noqa: E402


def preparation(rows):
    return pd.DataFrame(rows, columns=["id", "round", "sync_seconds", "measured_skew_seconds", "skew_bound_seconds"])


def test_per_round_sums_the_cost_and_takes_the_median_skew_of_each_round():
    prep = preparation([(1, 1, 0.5, 1e-6, 4e-6), (2, 1, 0.25, 3e-6, 6e-6), (3, 1, 0.125, 2e-6, 5e-6),
                        (1, 2, 0.01, 10e-6, 7e-6), (2, 2, 0.02, 20e-6, 9e-6)])
    table = sync_figures.per_round(prep)
    assert list(table.index) == [1, 2]
    assert table.at[1, "sync_s"] == pytest.approx(0.875)
    assert table.at[2, "sync_s"] == pytest.approx(0.03)
    assert table.at[1, "skew_us"] == pytest.approx(2.0)
    assert table.at[2, "skew_us"] == pytest.approx(15.0)
    assert table.at[1, "bound_us"] == pytest.approx(5.0)
    assert table.at[2, "bound_us"] == pytest.approx(8.0)


def test_median_rounds_takes_each_rounds_median_over_the_launches():
    launches = [sync_figures.per_round(preparation([(1, 1, s, k, 1e-6), (1, 2, s / 10, k * 2, 1e-6)]))
                for s, k in ((0.3, 1e-6), (0.1, 5e-6), (0.2, 3e-6))]
    table = sync_figures.median_rounds(launches)
    assert table.at[1, "sync_s"] == pytest.approx(0.2)
    assert table.at[2, "sync_s"] == pytest.approx(0.02)
    assert table.at[1, "skew_us"] == pytest.approx(3.0)
    assert table.at[2, "skew_us"] == pytest.approx(6.0)


def test_print_rounds_puts_now_and_before_side_by_side_and_marks_a_round_only_one_has(capsys):
    now = sync_figures.per_round(preparation([(1, 1, 0.5, 2e-6, 4e-6), (1, 2, 0.01, 3e-6, 4e-6)]))
    before = sync_figures.per_round(preparation([(1, 1, 0.7, 5e-6, 6e-6)]))
    sync_figures.print_rounds("openmpi", 8, {"clock": now, "before": before})
    lines = capsys.readouterr().out.splitlines()
    assert [line.split() for line in lines] == [
        ["openmpi", "8", "1", "0.500", "0.700", "2.00", "5.00", "4.00", "6.00"],
        ["openmpi", "8", "2", "0.010", "-", "3.00", "-", "4.00", "-"]]
