"""docs/examples/history/README.md quotes the files beside it: the change
points are changes.csv, the verdicts per release the guidelines' trends,
the violated tests violated.csv, the releases releases.csv, the check
confirm-regressions.csv; and the history it describes is history.db."""
import csv
import json
import pathlib
import sqlite3

from markdown_tables import markdown_table

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = ROOT / "docs" / "examples" / "history"
TEXT = (HERE / "README.md").read_text()
SIZES = {"8": "8 B", "1024": "1 KiB", "65536": "64 KiB"}


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_the_change_points_are_changes_csv():
    expected = []
    for c in rows(HERE / "changes.csv"):
        where = "Full" if "topology=full" in c["cell"] else "line"
        size = SIZES[c["cell"].rsplit("msize=", 1)[1]]
        expected.append([c["begins_release"], c["op"], f"{where}, {size}",
                         f"{float(c['before_us']):.4g} → {float(c['after_us']):.4g}", f"{float(c['ratio']):.2f}",
                         f"{float(c['p']):.3f}", f"{c['entries_before']} / {c['entries_after']}"])
    assert sorted(markdown_table(TEXT, "## Which release changed which cells")) == sorted(expected)
    assert f"**{len(expected)} change points, all in MPICH" in TEXT


def test_the_verdicts_per_release_are_the_trends():
    table = {cells[0]: cells[1:] for cells in markdown_table(TEXT, "## Which release changed which guidelines")}
    count = {"violated": 0, "holds": 0, "open": 0}
    for library in ("mpich", "openmpi"):
        for column, guideline in enumerate(("GL4", "GL6", "GL7", "GL8")):
            for r in rows(HERE / "trends" / f"{guideline}-{library}" / "trend.csv"):
                assert table[r["release"]][column] == \
                    f"{r['violated']}/{r['tests']} ({r['holds']} hold, {r['open']} open)"
                for k in count:
                    count[k] += int(r[k])
    assert len(table) == 15
    assert f"5 are violated and {count['holds']} hold; **{count['open']} are open**" in TEXT
    assert count["violated"] == 5


def test_the_violated_tests_are_violated_csv():
    quoted = markdown_table(TEXT, "violated tests ([violated.csv](violated.csv))")
    written = rows(HERE / "violated.csv")
    assert len(quoted) == len(written)
    for cells, r in zip(quoted, written):
        assert cells[0] == r["release"] and cells[2] == r["msize"] and cells[4] == r["p_value"]
        assert cells[1].startswith(r["guideline"].split(":")[0])
        assert cells[3] == f"{r['ratio']} ({r['ratio_ci_low']}–{r['ratio_ci_high']})"


def test_every_release_ran_and_is_in_the_history():
    releases = rows(HERE / "releases.csv")
    assert len(releases) == 15 and {r["status"] for r in releases} == {"added"}
    with sqlite3.connect(HERE / "history.db") as db:
        names = {r[0] for r in db.execute("SELECT name FROM archives")}
        configure = dict(db.execute("SELECT release, configure FROM archives"))
    assert names == {r["archive"] for r in releases}
    assert configure["mpich 4.2.3"] == "--with-device=ch4:ofi,ucx --with-pm=hydra:gforker"
    assert configure["mpich 4.3.1"] == "--with-device=ch4:ucx,ofi --with-pm=hydra:gforker"
    assert configure["openmpi 5.0.11"] == ""


def test_the_check_is_confirm_regressions_csv():
    regressions = rows(HERE / "confirm-regressions.csv")
    slower = sorted((r["op"], r["msize"], f"{float(r['ratio']):.3f}") for r in regressions if r["verdict"] == "slower")
    assert slower == [("allgather", "65536", "1.664"), ("neighbor_allgather", "1024", "1.652")]
    assert "**2 of 24 cells slower**" in TEXT and len(regressions) == 24
    fastest = rows(HERE / "confirm" / "op-neighbor_alltoall-topology-cart-msize-8" / "trend.csv")
    assert [r["run_min_us"] for r in fastest] == ["2.103", "3.155", "1.863", "3.139", "1.953", "3.144"]
    assert "2.103,\n  1.863, 1.953 µs under 4.3.2 and 3.155, 3.139, 3.144 µs under 5.0.0" in TEXT
    assert json.loads(json.dumps(rows(HERE / "confirm-changes.csv"))) == []
