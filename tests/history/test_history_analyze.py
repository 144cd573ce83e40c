"""`nbhbench analyze --history DB`: the analysis goes into the history,
its report gets a History section (since when each violation stands,
where each cell changed) and the history's page; --fail-on-change exits 5
with one line per change that begins with the analysis."""
import csv
import json
import sqlite3

from history_testing import nbhbench


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_analyze_with_history_adds_it_and_reports_since_when(series_archives, series_analyses, tmp_path):
    db = tmp_path / "history.db"
    nbhbench("history", "add", "--db", db, *series_analyses[:7])
    out = tmp_path / "analysis"
    done = nbhbench("analyze", series_archives[7], "--history", db, "--out", out, "--no-plots", "--fail-on-change")
    assert "change:" not in done.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT COUNT(*) FROM entries").fetchone() == (8,)
    info = json.loads((out / "history.json").read_text())
    assert info["entry"] == 8 and info["entries"] == 8 and not info["already"]
    violations = read_csv(out / "history_violations.csv")
    assert len(violations) == 1
    v = violations[0]
    assert v["guideline"].startswith("GL4") and "msize=1024" in v["parameters"]
    assert v["since_archive"] == "a05" and v["violated_entries"] == "4" and v["measured_entries"] == "8"
    a = [float(x) for x in v["trend_a_us"].split(", ")]
    assert len(a) == 8 and min(a[4:]) > 1.3 * max(a[:4])
    changes = read_csv(out / "history_changes.csv")
    assert [(c["begins_archive"], c["begins_here"]) for c in changes] == [("a05", "no")]
    report = (out / "report.md").read_text()
    history = report[report.index("\n## History\n"):report.index("\n## Provenance\n")]
    assert "entry 8 of the history" in history and "| a05 |" in history and "2026-01-15 12:00" in history
    assert "### Cells that changed" in history and "0 begin with this analysis" in history
    assert "<h2 id=\"history\">History</h2>" in (out / "report.html").read_text()
    assert (out / "history.html").stat().st_size > 0

    # Analysed again with the history: nothing added, the same section.
    again = tmp_path / "again"
    nbhbench("analyze", series_archives[7], "--history", db, "--out", again, "--no-plots")
    assert json.loads((again / "history.json").read_text())["already"] is True
    assert "nothing was added" in (again / "report.md").read_text()


def test_fail_on_change_exits_5_with_one_line_per_change_it_begins(series_archives, series_analyses, tmp_path):
    # The archives after the slowdown are in the history first: the 5th,
    # analysed last, is where the change begins.
    db = tmp_path / "history.db"
    nbhbench("history", "add", "--db", db, *(a for i, a in enumerate(series_analyses) if i != 4))
    done = nbhbench("analyze", series_archives[4], "--history", db, "--out", tmp_path / "a05", "--no-plots",
                    "--fail-on-change", check=False)
    assert done.returncode == 5, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("nbhbench: change: ")]
    assert len(lines) == 1 and "neighbor_allgather" in lines[0] and "slower from a05" in lines[0]
    assert "1 change point(s) begin with this analysis; failing (--fail-on-change)" in done.stderr
    assert (tmp_path / "a05" / "report.html").exists(), "the analysis is written first"


def test_history_options_of_analyze_are_checked(series_archives, tmp_path):
    for args, why in ((["--fail-on-change"], "--fail-on-change needs --history DB"),
                      (["--history-by", "date"], "--history-by needs --history DB"),
                      (["--history", tmp_path / "h.db", "--history-by", "size"], "unknown order 'size'"),
                      (["--history", tmp_path / "nowhere" / "h.db"], "--history: ")):
        done = nbhbench("analyze", series_archives[0], "--no-plots", "--out", tmp_path / "x", *args, check=False)
        assert done.returncode == 2 and why in done.stderr, done.stderr
        assert not (tmp_path / "x").exists()
