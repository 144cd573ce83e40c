"""The change detection on a real clean history: docs/examples/history/demo/history.db,
24 archives of the demo campaign run one after another on this project's
machine (make bench's, bench/bench-history), through the commands' code
(bench/history/real_archives.py, its quick sample: every 4th entry and
bump start). The history is fixed and the method's null seeded, so the
figures are the same at every run; the bounds are docs/history.md's."""
import csv
import sys

import pytest

from history_testing import ROOT

sys.path.insert(0, str(ROOT / "bench" / "history"))

import real_archives  # noqa: E402

HISTORY = ROOT / "docs" / "examples" / "history" / "demo" / "history.db"


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    out = tmp_path_factory.mktemp("real")
    real_archives.main(str(HISTORY), out, quick=True)
    tables = {}
    for name in ("online", "offline"):
        with open(out / f"{name}.csv", newline="") as f:
            tables[name] = list(csv.DictReader(f))
    return tables


def share(rows, test):
    return sum(test(r) for r in rows) / len(rows)


def test_false_alerts_stay_under_5_per_100_cells(figures):
    clean = [r for r in figures["online"] if float(r["factor"]) == 1.0]
    assert len(clean) >= 100 and {int(r["earlier"]) for r in clean} >= {5}
    assert share(clean, lambda r: r["status"] == "departs") <= 0.05
    clean = [r for r in figures["offline"] if float(r["factor"]) == 1.0]
    assert len(clean) == 30 and share(clean, lambda r: bool(r["points"])) <= 0.05


def test_a_1_5x_step_is_flagged_on_the_archive_that_brings_it(figures):
    planted = [r for r in figures["online"] if float(r["factor"]) == 1.5]
    assert share(planted, lambda r: r["status"] == "departs") >= 0.9
    found = [float(r["ratio"]) for r in planted if r["status"] == "departs"]
    assert sorted(found)[len(found) // 2] == pytest.approx(1.5, rel=0.05)


def test_a_1_5x_bump_is_found_at_both_ends(figures):
    bumps = [r for r in figures["offline"] if float(r["factor"]) == 1.5]
    assert share(bumps, lambda r: r["found_start"] == "True" and r["found_end"] == "True") >= 0.9
