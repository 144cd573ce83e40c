"""docs/examples/README.md, the index of the examples, lists what a folder
holds: for full-jupiter every file and folder it names is there, and every
one that is there is named."""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "docs" / "examples"


def named_in_row(example):
    """The files and folders the index's row of EXAMPLE names in its last
    column, outside parentheses ("`report.md`/`.html`" names report.md and
    report.html)."""
    row = next(line for line in (EXAMPLES / "README.md").read_text().splitlines()
               if line.startswith(f"| [{example}/]"))
    holds = re.sub(r"\([^)]*\)", "", row.strip().strip("|").split("|")[-1])  # what is in (...) describes
    names = set()
    for first, more in re.findall(r"`([^`]+)`((?:/`[^`]+`)*)", holds):
        names.add(first)
        stem = first.rsplit(".", 1)[0]
        names.update(stem + other for other in re.findall(r"`(\.[^`]+)`", more))
    return {n.rstrip("/") for n in names if "." in n or n.endswith("/")}


def test_full_jupiter_s_row_names_exactly_its_files():
    there = {p.name for p in (EXAMPLES / "full-jupiter").iterdir()}
    named = named_in_row("full-jupiter")
    assert named - there == set(), f"named but not there: {sorted(named - there)}"
    assert there - named == set(), f"there but not named: {sorted(there - named)}"


def test_the_row_parser_reads_pairs_and_folders():
    # not vacuous: the parser finds the names the row is written with
    named = named_in_row("full-jupiter")
    assert {"report.md", "report.html", "plots", "previous", "README.md"} <= named
