"""docs/examples/adaptive/README.md quotes the files beside it: the demo's
table is comparison.csv, the replay tables are replay.txt, and the
progress rehearsal's decisions are its summary.csv."""
import csv
import pathlib
import re

from markdown_tables import markdown_table

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = ROOT / "docs" / "examples" / "adaptive"
TEXT = (HERE / "README.md").read_text()


def numbers(cell):
    return [float(x.replace(" ", "")) for x in re.findall(r"\d[\d ]*\.?\d*", cell)]


def replays():
    """The replay.txt blocks: [{key: text}] in file order."""
    blocks = []
    for line in (HERE / "replay.txt").read_text().splitlines():
        key, _, value = line.partition(" ")
        if key == "archive":
            blocks.append({})
        if blocks and not line.startswith("#"):
            blocks[-1][key] = value.strip()
    return blocks


def test_the_demo_table_is_comparison_csv():
    with open(HERE / "comparison.csv", newline="") as f:
        rows = {r["name"].replace("demo ", "").replace("30 runs, ", ""): r for r in csv.DictReader(f)}
    seen = 0
    for cells in markdown_table(TEXT, "## 1. The demo"):
        r = rows[cells[0].replace("30 runs, ", "")]
        assert numbers(cells[1])[0] == int(r["experiment_runs"])
        assert numbers(cells[2]) == [int(r["kernel_seconds"])] and numbers(cells[3]) == [int(r["wall_seconds"])]
        assert [cells[4], cells[5], cells[6]] == [r["violated"], r["holds"], r["open"]]
        if cells[7]:
            assert numbers(cells[7]) == [int(r["decided_same_as_fixed"]), int(r["decided"])]
        seen += 1
    assert seen == 4


def test_the_replay_tables_are_replay_txt():
    blocks = replays()
    synthetic = [b for b in blocks if "nbhcoll-study" in b["archive"]]
    for cells, b in zip(markdown_table(TEXT, "## 3. make bench"), synthetic):
        assert numbers(cells[1])[:2] == numbers(b["runs"])[:2]
        assert numbers(cells[2])[:2] == numbers(b["experiment_runs"])[:2]
        assert numbers(cells[3])[:2] == numbers(b["decided"])[:2]
        assert numbers(cells[5])[:2] == numbers(b["violations"])[:2]
    progress = [b for b in blocks if "progress-openmpi" in b["archive"]]
    rows = markdown_table(TEXT, "## 2. The progress rehearsal")
    assert len(rows) == len(progress) == 3
    for cells, b in zip(rows, progress):
        assert f"hold ratio {cells[0]}" in b["design"]
        for cell, key in ((cells[1], "experiment_runs"), (cells[2], "decided")):
            quoted, replayed = numbers(cell), numbers(b[key])
            assert quoted[0] == replayed[0] and quoted[-1] == replayed[2], (cell, b[key])   # count and percent
        assert numbers(cells[3])[:2] == numbers(b["agree"])[:2]
        assert numbers(cells[4])[:2] == numbers(b["violations"])[:2]


def test_the_progress_decisions_are_its_summary():
    with open(HERE / "progress" / "adaptive" / "summary.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    counts = [sum(int(r[k]) for r in rows) for k in ("n_vio_tests", "n_holds_tests", "n_open_tests", "n_tests")]
    assert counts == [40, 16, 694, 750]
    assert "with 40 tests violated, 16 holding, 694 open" in TEXT.replace("\n", " ")
