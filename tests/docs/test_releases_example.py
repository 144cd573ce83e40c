"""docs/examples/releases is what its write-up says it is: the five
libraries' archives share one interleaved sequence (a slot per run, every
library once in each), so their --baseline comparisons are paired by launch
in every cell; MPICH 5 with UCX forced ran a sequence of its own and is
compared unpaired; the five libraries' tests are today's two-level test; and
the 2026-11-27 publication is kept in 2026-11-27/, marked superseded, with
the tables of that day's tests (every round a pair, unpaired --baseline)."""
import csv
import pathlib

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = ROOT / "docs" / "examples" / "releases"
OLD = HERE / "2026-11-27"
LIBRARIES = ("openmpi", "mpich", "openmpi5", "mpich5", "intelmpi")


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def archive_runs(library, ucx=False):
    """The runs.csv rows of the one archive of LIBRARY (MPICH 5 with UCX forced: UCX) in provenance/."""
    found = [p for p in (HERE / "provenance").glob(f"demo-{library}-2*") if p.name.endswith("-ucx") == ucx]
    assert len(found) == 1, (library, ucx, found)
    return rows(found[0] / "runs.csv")


def test_the_five_libraries_ran_in_one_interleaved_sequence():
    sequences = set()
    for library in LIBRARIES:
        runs = archive_runs(library)
        assert len(runs) == 10 and {r["state"] for r in runs} == {"done"}
        assert sorted(int(r["slot"]) for r in runs) == list(range(1, 11)), library
        sequences |= {r["interleave"] for r in runs}
    assert len(sequences) == 1 and "" not in sequences
    ucx = archive_runs("mpich5", ucx=True)
    assert not {r.get("interleave") or "" for r in ucx} & sequences  # a launch sequence of its own


def compared_cells(path):
    return [r for r in rows(path) if r["verdict"] not in ("new only", "baseline only", "not measured")]


def test_the_release_comparisons_are_paired_by_launch_and_the_ucx_one_unpaired():
    for folder in ("openmpi5-vs-openmpi", "mpich5-vs-mpich"):
        cells = compared_cells(HERE / folder / "regressions.csv")
        assert len(cells) == 30
        assert {(r["method"], r["pairs"], r["df"]) for r in cells} == {("launches", "10", "9")}, folder
        assert "**paired by launch**" in (HERE / folder / "report.md").read_text()
    cells = compared_cells(HERE / "mpich5-ucx-vs-mpich" / "regressions.csv")
    assert len(cells) == 30 and {(r["method"], r["pairs"]) for r in cells} == {("unpaired", "")}
    assert "**unpaired**" in (HERE / "mpich5-ucx-vs-mpich" / "report.md").read_text()


def test_the_five_libraries_are_tested_by_the_two_level_test():
    tests = rows(HERE / "five-libraries" / "tests.csv")
    assert len(tests) == 150
    assert {(t["method"], t["pairs"], t["df"]) for t in tests} == {("paired", "70", "9")}


def test_the_first_publication_is_kept_superseded_with_that_day_s_tests():
    text = " ".join((OLD / "README.md").read_text().split())
    assert "Superseded by [../README.md](../README.md)" in text
    old_tests = rows(OLD / "five-libraries" / "tests.csv")
    assert len(old_tests) == 150 and "df" not in old_tests[0]  # the pooled test of every round: today's --method rounds
    for folder in ("openmpi5-vs-openmpi", "mpich5-vs-mpich", "mpich5-ucx-vs-mpich"):
        assert "method" not in rows(OLD / folder / "regressions.csv")[0]  # unpaired, before launches were paired
    assert {p.name for p in (OLD / "provenance").iterdir()} == {
        "demo-openmpi-20261127-003340", "demo-mpich-20261127-003350", "demo-openmpi5-20261127-003409",
        "demo-mpich5-20261127-003426", "demo-intelmpi-20261127-003435", "demo-mpich5-20261127-003516-ucx"}
    assert "[2026-11-27/](2026-11-27/README.md)" in (HERE / "README.md").read_text()
