"""Change points (history/changes.py: E-Divisive means on the run medians,
a permutation test over whole entries) on series whose answer is known,
and `history changes` / `history trend` on the shared history."""
import csv

import numpy as np
import pytest

from history.changes import change_points
from history_testing import nbhbench

PLANTED = {"op": "neighbor_allgather", "topology": "cart", "msize": "1024"}


def series(rng, count, step_at=None, factor=1.0, between=0.03, within=0.02, runs=8):
    """COUNT entries of RUNS run medians around 10 us: a level per entry
    (lognormal, sd BETWEEN) and per run (sd WITHIN); FACTOR from STEP_AT on."""
    out = []
    for i in range(count):
        level = np.log(10) + rng.normal(0, between) + (np.log(factor) if step_at is not None and i >= step_at else 0)
        out.append(np.exp(level + rng.normal(0, within, runs)))
    return out


def test_a_step_is_found_where_it_begins_with_its_size():
    rng = np.random.default_rng(1)
    for count, at in ((8, 4), (8, 5), (12, 3), (20, 15)):
        found = change_points(series(rng, count, at, 1.3), f"step {count} {at}")
        assert [c.index for c in found] == [at], (count, at, found)
        c = found[0]
        assert c.ratio == pytest.approx(1.3, rel=0.08) and c.p <= 0.05
        assert (c.entries_before, c.entries_after) == (at, count - at)


def test_two_steps_are_both_found():
    rng = np.random.default_rng(2)
    samples = series(rng, 15, 5, 1.4)
    samples[10:] = [s / 1.4 / 1.3 for s in samples[10:]]   # back, and further down
    assert [c.index for c in change_points(samples, "two steps")] == [5, 10]


def test_false_alerts_on_series_without_change_stay_near_alpha():
    # 200 series of 8 entries without change (the entries exchangeable):
    # a series with any change point is a false alert.
    rng = np.random.default_rng(3)
    alerts = sum(bool(change_points(series(rng, 8), f"clean {i}", min_ratio=1.0)) for i in range(200))
    assert alerts <= 200 * 0.10, f"{alerts} of 200 series"


def test_a_step_smaller_than_min_ratio_or_within_the_run_spread_is_no_change():
    rng = np.random.default_rng(4)
    assert change_points(series(rng, 10, 5, 1.02, between=0.001, within=0.001), "small") == []
    assert change_points(series(rng, 10, 5, 1.02, between=0.001, within=0.001), "small", min_ratio=1.01) != []
    # Runs that scatter by 30 %: a 5 % step among them is no change.
    assert change_points(series(rng, 10, 5, 1.05, between=0.01, within=0.3), "noisy") == []


def test_the_answer_is_the_same_every_time_and_short_series_have_none():
    samples = series(np.random.default_rng(5), 9, 5, 1.2)
    first = change_points(samples, "same")
    assert first and first == change_points(samples, "same")
    assert change_points(samples[:2], "two") == []


def test_history_changes_finds_the_planted_cell_at_the_fifth_archive(sqlite_history, tmp_path):
    out = tmp_path / "changes.csv"
    done = nbhbench("history", "changes", "--db", sqlite_history, "--csv", out)
    with open(out, newline="") as f:
        found = list(csv.DictReader(f))
    assert len(found) == 1, done.stdout
    c = found[0]
    assert c["op"] == "neighbor_allgather" and "topology=cart" in c["cell"] and "msize=1024" in c["cell"]
    assert c["begins_archive"] == "a05" and c["begins_release"] == "openmpi 5.0.5" and c["direction"] == "slower"
    assert c["previous_release"] == "openmpi 5.0.4" and float(c["ratio"]) == pytest.approx(1.5, rel=0.05)
    assert float(c["p"]) <= 0.05 and (c["entries_before"], c["entries_after"]) == ("4", "4")
    assert done.stdout.splitlines()[-1].startswith("1 change point(s) in 24 cell series (E-Divisive")
    # --where narrows the cells; a stricter alpha than 8 entries can reach finds none.
    assert nbhbench("history", "changes", "--db", sqlite_history, "--where", "op=neighbor_alltoall").stdout \
        .startswith("0 change point(s) in 12 cell series")
    assert nbhbench("history", "changes", "--db", sqlite_history, "--alpha", "0.01").stdout.startswith("0 change")


def test_history_trend_of_a_cell_and_of_a_guideline(sqlite_history, tmp_path):
    where = ",".join(f"{k}={v}" for k, v in PLANTED.items())
    done = nbhbench("history", "trend", "--db", sqlite_history, "--cell", where, "--out", tmp_path / "cell")
    with open(tmp_path / "cell" / "trend.csv", newline="") as f:
        table = list(csv.DictReader(f))
    assert [r["archive"] for r in table] == [f"a{i:02d}" for i in range(1, 9)]
    assert [bool(r["change"]) for r in table] == [False] * 4 + [True] + [False] * 3
    assert float(table[4]["median_us"]) / float(table[3]["median_us"]) == pytest.approx(1.5, rel=0.1)
    assert all(float(r["run_min_us"]) <= float(r["median_us"]) <= float(r["run_max_us"]) for r in table)
    png = tmp_path / "cell" / "trend.png"
    assert done.stdout.splitlines()[-1] == str(png) and png.read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "cell" / "trend.pdf").stat().st_size > 0

    nbhbench("history", "trend", "--db", sqlite_history, "--guideline", "GL4", "--by", "release",
             "--out", tmp_path / "gl4")
    with open(tmp_path / "gl4" / "trend.csv", newline="") as f:
        table = list(csv.DictReader(f))
    assert [r["release"] for r in table] == [f"openmpi 5.0.{i}" for i in range(1, 9)]
    assert [int(r["violated"]) for r in table] == [0] * 4 + [1] * 4 and {r["tests"] for r in table} == {"12"}
    with open(tmp_path / "gl4" / "trend_tests.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == 8 * 12
    assert (tmp_path / "gl4" / "trend.png").read_bytes()[:4] == b"\x89PNG"


def test_history_trend_needs_one_cell(sqlite_history, tmp_path):
    for args, why in ((["--cell", "op=neighbor_allgather,topology=cart"], "cells of the history have"),
                      (["--cell", "op=nothing"], "no cell of the history has op=nothing"),
                      (["--guideline", "GL99"], "no test of the history is of 'GL99'"),
                      ([], "name one cell"), (["--cell", "op"], "'op' is not NAME=VALUE")):
        done = nbhbench("history", "trend", "--db", sqlite_history, *args, "--out", tmp_path, check=False)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and why in done.stderr, done.stderr
    done = nbhbench("history", "trend", "--db", sqlite_history, "--cell", "op=neighbor_allgather,topology=cart",
                    check=False)
    assert "they differ in msize" in done.stderr
