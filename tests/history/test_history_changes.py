"""`history changes` and `history trend` on the shared history (ten
synthetic archives, one cell 1.5x slower from the 7th on): the offline
change points as the commands print and write them. The methods
themselves: test_history_segments.py, test_history_departure.py."""
import csv
import shutil

import pytest

from history_testing import ROOT, nbhbench

PLANTED = {"op": "neighbor_allgather", "topology": "cart", "msize": "1024"}


def test_history_changes_finds_the_planted_cell_at_the_seventh_archive(sqlite_history, tmp_path):
    out = tmp_path / "changes.csv"
    done = nbhbench("history", "changes", "--db", sqlite_history, "--csv", out)
    with open(out, newline="") as f:
        found = list(csv.DictReader(f))
    assert len(found) == 1, done.stdout
    c = found[0]
    assert c["op"] == "neighbor_allgather" and "topology=cart" in c["cell"] and "msize=1024" in c["cell"]
    assert c["campaign"] == "series" and c["library"] == "openmpi" and c["distribution"] == "system"
    assert c["begins_archive"] == "a07" and c["begins_release"] == "openmpi 5.0.7" and c["direction"] == "slower"
    assert c["previous_release"] == "openmpi 5.0.6" and c["kind"] == "step"
    assert float(c["ratio"]) == pytest.approx(1.5, rel=0.05)
    assert float(c["ratio_low"]) < 1.5 < float(c["ratio_high"])
    assert float(c["p_adjusted"]) <= 0.05 and (c["entries_before"], c["entries_after"]) == ("6", "4")
    assert "1.5" in c["line"] and "step" in c["line"]
    last = done.stdout.splitlines()[-1]
    assert last.startswith("1 change point(s) in 24 cell series and 1 series of the entries' common shifts, by date: "
                           "25 searched (circular binary segmentation), 1 changed at a false discovery rate of "
                           "0.05"), last
    # --where narrows the cells (and the false discovery rate is over those).
    assert nbhbench("history", "changes", "--db", sqlite_history, "--where", "op=neighbor_alltoall").stdout \
        .startswith("0 change point(s) in 12 cell series")


def test_where_names_only_parameters_the_history_has(sqlite_history, tmp_path):
    for args in (["changes", "--where", "msise=1024"], ["trend", "--guideline", "GL4", "--where", "msise=1024"],
                 ["trend", "--cell", "msise=1024"]):
        done = nbhbench("history", args[0], "--db", sqlite_history, *args[1:], "--out", tmp_path / "t", check=False) \
            if args[0] == "trend" else nbhbench("history", *args, "--db", sqlite_history, check=False)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
        assert "has a parameter 'msise'" in done.stderr and "msize" in done.stderr


def test_history_trend_of_a_cell_and_of_a_guideline(sqlite_history, tmp_path):
    where = ",".join(f"{k}={v}" for k, v in PLANTED.items())
    done = nbhbench("history", "trend", "--db", sqlite_history, "--cell", where, "--out", tmp_path / "cell")
    with open(tmp_path / "cell" / "trend.csv", newline="") as f:
        table = list(csv.DictReader(f))
    assert [r["archive"] for r in table] == [f"a{i:02d}" for i in range(1, 11)]
    assert [bool(r["change"]) for r in table] == [False] * 6 + [True] + [False] * 3
    assert float(table[6]["median_us"]) / float(table[5]["median_us"]) == pytest.approx(1.5, rel=0.1)
    assert all(float(r["run_min_us"]) <= float(r["median_us"]) <= float(r["run_max_us"]) for r in table)
    png = tmp_path / "cell" / "trend.png"
    assert done.stdout.splitlines()[-1] == str(png) and png.read_bytes()[:4] == b"\x89PNG"
    assert (tmp_path / "cell" / "trend.pdf").stat().st_size > 0

    nbhbench("history", "trend", "--db", sqlite_history, "--guideline", "GL4", "--by", "release",
             "--out", tmp_path / "gl4")
    with open(tmp_path / "gl4" / "trend.csv", newline="") as f:
        table = list(csv.DictReader(f))
    assert [r["release"] for r in table] == [f"openmpi 5.0.{i}" for i in range(1, 11)]
    assert [int(r["violated"]) for r in table] == [0] * 6 + [1] * 4 and {r["tests"] for r in table} == {"12"}
    with open(tmp_path / "gl4" / "trend_tests.csv", newline="") as f:
        assert len(list(csv.DictReader(f))) == 10 * 12
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


def test_no_common_shift_searches_the_cells_as_they_are(tmp_path):
    """The releases example's history (docs/examples/history): 15 releases
    whose launches were interleaved, MPICH 5.0.0 about 1.8x slower in 16 of
    its 24 cells. Taken out as the entries' common shift (the default), that
    step leaves the cells; left in (--no-common-shift), the search finds it."""
    db = tmp_path / "history.db"
    shutil.copyfile(ROOT / "docs" / "examples" / "history" / "history.db", db)
    default = nbhbench("history", "changes", "--db", db, "--by", "release").stdout.splitlines()
    assert default[-1].startswith("1 change point(s) in 48 cell series and 2 series of the entries' common shifts")
    out = tmp_path / "changes.csv"
    kept = nbhbench("history", "changes", "--db", db, "--by", "release", "--no-common-shift", "--csv", out)
    assert kept.stdout.splitlines()[-1].startswith("13 change point(s) in 48 cell series and 0 series of the "
                                                   "entries' common shifts")
    assert kept.stdout.splitlines()[-1].endswith("; the entries' common shift left in (--no-common-shift)")
    with open(out, newline="") as f:
        found = list(csv.DictReader(f))
    assert {c["begins_release"] for c in found} == {"mpich 5.0.0"} and {c["direction"] for c in found} == {"slower"}
    assert sum(c["op"].startswith("neighbor") for c in found) == 12
    page = tmp_path / "page.html"
    nbhbench("history", "page", "--db", db, "--by", "release", "--no-common-shift", "--out", page)
    assert "the entries' common shift left in" in page.read_text()
