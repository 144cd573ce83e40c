"""docs/examples/adaptive/README.md quotes the files beside it, and those
files are what they say: comparison.csv is the analyses' tests.csv counted
again (today's and the superseded 2026-11-26 publication's), the analyses
are today's design (the two-level test across launches, error spending over
the looks of the adaptive ones; the method-rounds folders the pooled round
test), replay.csv is replay.txt, and the README's tables are comparison.csv,
replay.csv, the analyses' tests.csv and 2026-11-26/comparison.csv."""
import csv
import pathlib
import re

import pytest

from markdown_tables import markdown_table

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = ROOT / "docs" / "examples" / "adaptive"
TEXT = (HERE / "README.md").read_text()
# comparison.csv's rows: the analysis each counts and the fixed design's it is compared with.
ANALYSES = {
    "demo adaptive, hold ratio 1.03": ("demo/adaptive", "demo/fixed"),
    "demo fixed, 30 runs, hold ratio 1.03": ("demo/fixed", "demo/fixed"),
    "demo adaptive, hold ratio 1.2": ("demo/adaptive-hold1.2", "demo/fixed-hold1.2"),
    "demo fixed, 30 runs, hold ratio 1.2": ("demo/fixed-hold1.2", "demo/fixed-hold1.2"),
    "progress adaptive, hold ratio 1.03": ("progress/adaptive", "progress/fixed"),
    "progress fixed, 20 runs, hold ratio 1.03": ("progress/fixed", "progress/fixed"),
}


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def numbers(cell):
    return [float(x.replace(" ", "")) for x in re.findall(r"\d[\d ]*\.?\d*", cell)]


def comparison(publication=HERE):
    return {r["name"]: r for r in rows(publication / "comparison.csv")}


def decisions(folder, publication=HERE):
    """{test: decision} of an analysis; a test is its guideline and its
    parameters (tests.csv's columns from relation to b_params, as compare.R)."""
    tests = rows(publication / folder / "tests.csv")
    names = list(tests[0])
    keys = ["guideline_no", "tag"] + names[names.index("relation"):names.index("b_params") + 1]
    return {tuple(t[k] for k in keys): t["decision"] for t in tests}


@pytest.mark.parametrize("publication", [HERE, HERE / "2026-11-26"], ids=["today", "2026-11-26"])
def test_comparison_csv_counts_the_analyses(publication):
    table = comparison(publication)
    assert set(table) == set(ANALYSES)
    for name, (analysis, fixed) in ANALYSES.items():
        r, mine, theirs = table[name], decisions(analysis, publication), decisions(fixed, publication)
        assert mine.keys() == theirs.keys(), name
        counted = {d: sum(v == d for v in mine.values()) for d in ("violated", "holds", "open")}
        assert [int(r["violated"]), int(r["holds"]), int(r["open"])] == list(counted.values()), name
        assert int(r["tests"]) == len(mine)
        decided = [k for k, d in mine.items() if d != "open"]
        assert int(r["decided"]) == len(decided)
        assert int(r["decided_same_as_fixed"]) == sum(mine[k] == theirs[k] for k in decided), name


def test_the_analyses_are_two_level_and_the_adaptive_ones_spend_error():
    for name, (analysis, _) in ANALYSES.items():
        tests = rows(HERE / analysis / "tests.csv")
        # the two-level test: method paired, one degree of freedom less than the runs both sides have
        assert {t["method"] for t in tests} == {"paired"}, name
        assert all(int(t["df"]) == min(int(t["runs_a"]), int(t["runs_b"])) - 1 for t in tests), name
        looks = {float(t["p_look"]) for t in tests}
        if "adaptive" in name:
            # O'Brien-Fleming-type spending of 0.001 over the looks at 10, 15, ... of nrun_max runs:
            # every test's last look is below the fixed design's p, none at Bonferroni's 0.001 / looks.
            assert max(looks) < 0.001 and not looks & {0.0002, 0.001 / 3}, name
            assert all(float(t["ci_level_look"]) > 0.95 for t in tests), name
            assert "O'Brien-Fleming" in (HERE / analysis / "report.md").read_text(), name
        else:
            assert looks == {0.001}, name


def test_the_demo_and_progress_tables_are_comparison_csv():
    table = comparison()
    seen = 0
    for heading, campaign in (("## 1. The demo", "demo "), ("## 2. The progress", "progress ")):
        for cells in markdown_table(TEXT, heading):
            check_row(cells, table[campaign + cells[0]])
            seen += 1
    assert seen == len(table)


def check_row(cells, r):
    """A row of the demo's or the progress rehearsal's table is its row of comparison.csv."""
    assert numbers(cells[1])[:2] == [int(r["runs"]), int(r["fixed_runs"])]
    assert numbers(cells[2])[:3] == [int(r["experiment_runs"]), int(r["fixed_experiment_runs"]),
                                     int(r["experiment_runs_pct"])]
    assert numbers(cells[3]) == [int(r["wall_seconds"])]
    assert [cells[4], cells[5], cells[6]] == [r["violated"], r["holds"], r["open"]]
    if cells[7]:
        assert numbers(cells[7]) == [int(r["decided_same_as_fixed"]), int(r["decided"])]


def test_disagreements_csv_lists_the_decided_tests_that_differ():
    differ = rows(HERE / "disagreements.csv")
    for name, r in comparison().items():
        listed = [d for d in differ if d["name"] == name]
        assert len(listed) == int(r["decided"]) - int(r["decided_same_as_fixed"]), name
        assert all(d["decision"] != "open" and d["decision"] != d["decision_fixed"] for d in listed)


def replay_txt(path):
    """replay.txt's blocks as {key: text}, in file order."""
    blocks = []
    for line in path.read_text().splitlines():
        key, _, value = line.partition(" ")
        if key == "archive":
            blocks.append({})
        if blocks and not line.startswith("#"):
            blocks[-1][key] = value.strip()
    return blocks


def test_replay_csv_is_replay_txt():
    for folder in (HERE, HERE / "2026-11-24", HERE / "2026-11-26"):
        blocks, table = replay_txt(folder / "replay.txt"), rows(folder / "replay.csv")
        assert len(blocks) == len(table) > 0
        for b, r in zip(blocks, table):
            assert pathlib.PurePath(b["archive"]).name == r["archive"]
            assert numbers(b["runs"])[:2] == [int(r["runs"]), int(r["fixed_runs"])]
            assert numbers(b["experiment_runs"])[:2] == [int(r["experiment_runs"]), int(r["fixed_experiment_runs"])]
            decided = numbers(b["decided"])
            assert decided[:2] + decided[3:6] == [int(r[k]) for k in ("decided", "tests", "violated", "holds", "open")]
            assert numbers(b["agree"])[:2] == [int(r["agree"]), int(r["decided"])]
            assert numbers(b["violations"])[:3] == [int(r[k]) for k in ("violated_found", "violated_fixed",
                                                                         "violated_missed")]


def test_the_replay_table_is_replay_csv():
    table = {(r["archive"], r["first_round"], r["step"], r["hold_ratio"]): r for r in rows(HERE / "replay.csv")}
    seen = 0
    for cells in markdown_table(TEXT, "## 3. The rule replayed"):
        first, step = (str(int(x)) for x in numbers(cells[1])[:2])
        r = table[(cells[0].strip("`"), first, step, cells[2])]
        assert numbers(cells[3])[:3] == [int(r["runs"]), int(r["fixed_runs"]), round(float(r["runs_pct"]))]
        assert numbers(cells[4])[:3] == [int(r["experiment_runs"]), int(r["fixed_experiment_runs"]),
                                         round(float(r["experiment_runs_pct"]))]
        assert numbers(cells[5])[:2] == [int(r["decided"]), int(r["tests"])]
        assert numbers(cells[6])[:2] == [int(r["agree"]), int(r["decided"])]
        assert numbers(cells[7])[:2] == [int(r["violated_found"]), int(r["violated_fixed"])]
        seen += 1
    assert seen == len(table)


def test_the_method_rounds_analyses_are_the_pooled_test_of_the_fixed_archives():
    for campaign in ("demo", "progress"):
        pooled, two_level = rows(HERE / campaign / "fixed-method-rounds" / "tests.csv"), rows(HERE / campaign / "fixed" / "tests.csv")
        assert {t["method"] for t in pooled} == {"rounds"}, campaign
        names = list(pooled[0])
        keys = [k for k in names[names.index("relation"):names.index("b_params") + 1] if k != "method"]
        assert [[t[k] for k in keys] for t in pooled] == [[t[k] for k in keys] for t in two_level], campaign


def test_the_last_publication_is_its_comparison_csv():
    old, new = comparison(HERE / "2026-11-26"), comparison()
    seen = 0
    for cells in markdown_table(TEXT, "## What changed"):
        name = cells[0]
        for cell, r in ((cells[1], old[name]), (cells[2], new[name])):
            assert numbers(cell)[:5] == [int(r[k]) for k in ("experiment_runs", "fixed_experiment_runs", "violated",
                                                              "holds", "open")], (name, cell)
        seen += 1
    assert seen == len(old) == len(new)


def test_the_fixed_archives_under_both_tests_are_their_tests_csv():
    folders = {"demo": ("2026-11-26/demo/fixed", "demo/fixed-method-rounds", "demo/fixed"),
               "progress": ("2026-11-26/progress/fixed", "progress/fixed-method-rounds", "progress/fixed")}
    seen = 0
    for cells in markdown_table(TEXT, "| fixed archive |"):
        campaign = cells[0].split(",")[0]
        for cell, folder in zip(cells[1:], folders[campaign]):
            decided = [t["decision"] for t in rows(HERE / folder / "tests.csv")]
            assert numbers(cell) == [decided.count(d) for d in ("violated", "holds", "open")], (campaign, folder)
        seen += 1
    assert seen == len(folders)
