"""docs/examples/history/README.md quotes the files beside it: the
releases' comparisons are compared.csv, the verdicts per release the
guidelines' trends, the violated tests violated.csv, the change point
changes.csv, the releases releases.csv; the launches (launches.csv) were
interleaved as the README says; and the history it describes is
history.db."""
import collections
import csv
import pathlib
import sqlite3

from markdown_tables import markdown_table

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = ROOT / "docs" / "examples" / "history"
TEXT = (HERE / "README.md").read_text()
SIZES = {"8": "8 B", "1024": "1 KiB", "65536": "64 KiB"}
WHERE = {"cart": "line", "full": "Full"}


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def topology_and_size(change):
    """(topology, msize) of a changes.csv row's cell text."""
    return "full" if "topology=full" in change["cell"] else "cart", change["cell"].rsplit("msize=", 1)[1]


def test_every_slot_holds_one_launch_of_every_release_in_an_order_of_its_own():
    releases = [r["release"] for r in rows(HERE / "releases.csv")]
    launches = rows(HERE / "launches.csv")
    by_slot = collections.defaultdict(list)
    for r in launches:     # launches.csv is in the order the launches started
        by_slot[int(r["slot"])].append(r["release"])
    assert sorted(by_slot) == list(range(1, 11))
    for slot, order in by_slot.items():
        assert sorted(order) == sorted(releases), slot
    # launches of slot k all started before those of slot k + 1
    assert [int(r["slot"]) for r in launches] == sorted(int(r["slot"]) for r in launches)
    assert len({tuple(order) for order in by_slot.values()}) == 10
    assert {r["state"] for r in launches} == {"done"}


def test_each_release_is_compared_with_the_one_before_it_paired_by_launch():
    compared = rows(HERE / "compared.csv")
    assert {r["method"] for r in compared} == {"launches"} and {r["pairs"] for r in compared} == {"10"}
    pairs = list(dict.fromkeys((r["release"], r["baseline"]) for r in compared))
    releases = [r["release"] for r in rows(HERE / "releases.csv")]
    expected = [(new, old) for old, new in zip(releases, releases[1:]) if new.split("==")[0] == old.split("==")[0]]
    assert pairs == expected
    table = markdown_table(TEXT, "## Each release against the one before it, paired by launch")
    assert [(cells[0], cells[1]) for cells in table] == [(n.replace("==", " "), o.split("==")[1]) for n, o in pairs]
    for cells, (new, old) in zip(table, pairs):
        chosen = [r for r in compared if r["release"] == new]
        count = collections.Counter(r["verdict"] for r in chosen)
        off = sum(r["verdict"] == "no change" and (float(r["ratio_ci_high"]) < 1 or float(r["ratio_ci_low"]) > 1)
                  for r in chosen)
        assert cells[2:6] == [str(count["slower"]), str(count["faster"]), str(count["no change"]), str(off)]
        ratios = [float(r["ratio"]) for r in chosen]
        assert cells[6] == f"{min(ratios):.3f}–{max(ratios):.3f}"


def test_the_mpich_5_table_is_compared_csv():
    expected = []
    for r in rows(HERE / "compared.csv"):
        if r["release"] == "mpich==5.0.0":
            expected.append([r["op"], WHERE[r["topology"]], SIZES[r["msize"]],
                             f"{float(r['ratio']):.3f} ({float(r['ratio_ci_low']):.3f}–{float(r['ratio_ci_high']):.3f})",
                             f"{float(r['p_slower']):.2g}", r["verdict"]])
    assert markdown_table(TEXT, "### MPICH 5.0.0 against 4.3.2, every cell") == expected
    assert sum(e[-1] == "slower" for e in expected) == 16


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
    assert f"{count['violated']} are violated and {count['holds']} hold; **{count['open']} are open**" in TEXT


def test_the_violated_tests_are_violated_csv():
    quoted = markdown_table(TEXT, "repetitions on this machine). The others ([violated.csv](violated.csv))")
    written = {(r["release"], r["guideline"].split(":")[0]): r for r in rows(HERE / "violated.csv")}
    assert len(quoted) == len(written)
    for cells in quoted:
        r = written[cells[0], cells[1]]
        assert cells[2] == SIZES[r["msize"]] and cells[4] == r["p_value"]
        assert cells[3] == f"{r['ratio']} ({r['ratio_ci_low']}–{r['ratio_ci_high']})"


def test_the_change_points_are_changes_csv_and_agree_with_the_paired_comparison():
    changes = rows(HERE / "changes.csv")
    expected = []
    for c in changes:
        topology, msize = topology_and_size(c)
        expected.append([c["op"], f"{WHERE[topology]}, {SIZES[msize]}",
                         f"{float(c['before_us']):.4g} → {float(c['after_us']):.4g}",
                         f"{float(c['ratio']):.3f} ({float(c['ratio_low']):.3f}–{float(c['ratio_high']):.3f})",
                         f"{float(c['p']):.2g} ({float(c['p_adjusted']):.2g})",
                         f"{c['entries_before']} / {c['entries_after']}"])
    assert markdown_table(TEXT, "## What the history's change search sees") == expected
    assert {c["begins_release"] for c in changes} == {"mpich 5.0.0"}
    # every change point of a neighborhood cell is a cell the paired comparison found slower
    slower = {(r["op"], r["topology"], r["msize"]) for r in rows(HERE / "compared.csv")
              if r["release"] == "mpich==5.0.0" and r["verdict"] == "slower"}
    for c in changes:
        if c["op"].startswith("neighbor"):
            assert (c["op"], *topology_and_size(c)) in slower
    # with the common shift taken out (the default), the search misses them
    assert (HERE / "changes-common-shift.txt").read_text().splitlines()[-1].startswith("1 change point(s)")


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
