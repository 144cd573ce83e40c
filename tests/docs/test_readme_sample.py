"""The README's sample report adds up: its verdict is the sum of its table,
and both are what docs/examples/full-jupiter/summary.csv says."""
import csv
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def sample():
    text = (ROOT / "README.md").read_text()
    block = text[text.index("## A sample report"):]
    block = block[:block.index("\n## ", 3)]
    verdict = re.search(r"\*\*(\d+) of (\d+) tests violated\*\* \((\d+) of (\d+) groups\)", block)
    cells = re.findall(r"\| (\d+)/(\d+) \((\d+)/(\d+)\)", "\n".join(l for l in block.splitlines() if l.startswith("> | ")))
    return [int(g) for g in verdict.groups()], [[int(g) for g in c] for c in cells]


def test_the_verdict_is_the_sum_of_the_table():
    verdict, cells = sample()
    assert cells, "the sample has its study table"
    assert verdict == [sum(c[i] for c in cells) for i in range(4)]


def test_the_table_is_the_example_s_summary():
    _, cells = sample()
    with open(ROOT / "docs/examples/full-jupiter/summary.csv", newline="") as f:
        summary = [[int(r[k]) for k in ("n_vio_tests", "n_tests", "n_vio_groups", "n_groups")] for r in csv.DictReader(f)]
    assert sorted(cells) == sorted(summary)
