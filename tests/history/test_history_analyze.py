"""`nbhbench analyze --history DB`: the analysis goes into the history,
its report gets a History section (whether this entry departs from each
cell's recent history, since when each violation stands, the change
points of its cells) and the history's page; --fail-on-change exits 5
with one line per cell that departs, on the archive that brings the
change; a history that refuses the analysis still gets its report."""
import csv
import json
import sqlite3

from history_testing import nbhbench


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_ci_in_order_fails_on_the_archive_that_brings_the_change(series_archives, tmp_path):
    # The archives analysed one after another into a fresh history, as CI does.
    db = tmp_path / "history.db"
    codes, states = [], []
    for archive in series_archives:
        out = tmp_path / archive.name
        done = nbhbench("analyze", archive, "--history", db, "--out", out, "--no-plots", "--fail-on-change",
                        check=False)
        codes.append(done.returncode)
        planted = [d for d in read_csv(out / "history_departures.csv")
                   if d["op"] == "neighbor_allgather" and "topology=cart" in d["cell"]
                   and "msize=1024" in d["cell"].split(",")]
        states.append(planted[0]["status"])
        if archive.name == "a07":
            lines = [line for line in done.stderr.splitlines() if line.startswith("nbhbench: change: ")]
            assert len(lines) == 1 and "neighbor_allgather" in lines[0] and "msize=1024" in lines[0], done.stderr
            assert "1.5" in lines[0] and "slower" in lines[0] and "than its 6 entries before" in lines[0]
            assert "1 cell(s) depart from their recent history with this analysis; failing (--fail-on-change)" \
                in done.stderr
            assert (out / "report.html").exists(), "the analysis is written first"
    # Up to the 5th entry there is too little history to say; from the 6th the
    # cell is consistent until the 7th brings the change. The 8th and 9th are
    # measured against a baseline that holds the 7th among the entries before
    # the change (they may depart again); from the 10th the history sees the
    # change point (3 entries after it), and the new level is the baseline,
    # too short yet.
    assert states[:7] == ["too few entries"] * 5 + ["consistent", "departs"] and codes[:7] == [0] * 6 + [5]
    assert set(states[7:9]) <= {"consistent", "departs"}
    assert states[9] == "too few entries" and codes[9] == 0
    info = json.loads((tmp_path / "a07" / "history.json").read_text())
    assert info["entry"] == 7 and info["departs"] == 1 and info["consistent"] == 23 and info["too_few"] == 0
    assert info["common"]["status"] in ("consistent", "shifted") and info["common"]["earlier"] == 6


def test_analyze_with_history_adds_it_and_reports_since_when(series_archives, series_analyses, tmp_path):
    db = tmp_path / "history.db"
    nbhbench("history", "add", "--db", db, *series_analyses[:9])
    out = tmp_path / "analysis"
    done = nbhbench("analyze", series_archives[9], "--history", db, "--out", out, "--no-plots", "--fail-on-change")
    assert "change:" not in done.stderr
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT COUNT(*) FROM entries").fetchone() == (10,)
    info = json.loads((out / "history.json").read_text())
    assert info["entry"] == 10 and info["entries"] == 10 and not info["already"]
    violations = read_csv(out / "history_violations.csv")
    assert len(violations) == 1
    v = violations[0]
    assert v["guideline"].startswith("GL4") and "msize=1024" in v["parameters"] and "campaign" not in v["parameters"]
    assert v["since_archive"] == "a07" and v["violated_entries"] == "4" and v["measured_entries"] == "10"
    a = [float(x) for x in v["trend_a_us"].split(", ")]
    assert len(a) == 8 and min(a[4:]) > 1.3 * max(a[:4])
    changes = read_csv(out / "history_changes.csv")
    assert [(c["begins_archive"], c["begins_here"], c["kind"]) for c in changes] == [("a07", "no", "step")]
    report = (out / "report.md").read_text()
    history = report[report.index("\n## History\n"):report.index("\n## Provenance\n")]
    assert "entry 10 of the history" in history and "| a07 |" in history and "2026-01-17 12:00" in history
    assert "### Change points of its cells' series" in history and "0 begin with this analysis" in history
    assert "Of its 24 cells, 0 depart from their recent history, 23 are consistent with it, and 1 have too few" \
        in history
    assert "<h2 id=\"history\">History</h2>" in (out / "report.html").read_text()
    assert (out / "history.html").stat().st_size > 0

    # Analysed again with the history: nothing added, the same section.
    again = tmp_path / "again"
    nbhbench("analyze", series_archives[9], "--history", db, "--out", again, "--no-plots")
    assert json.loads((again / "history.json").read_text())["already"] is True
    assert "nothing was added" in (again / "report.md").read_text()


def test_a_history_that_refuses_the_analysis_still_gets_its_report(series_archives, series_analyses, tmp_path):
    # a01 and a02 are two entries: an analysis of both would count their runs twice.
    db = tmp_path / "history.db"
    nbhbench("history", "add", "--db", db, *series_analyses[:2])
    out = tmp_path / "both"
    done = nbhbench("analyze", series_archives[0], series_archives[1], "--history", db, "--out", out, "--no-plots",
                    check=False)
    assert done.returncode == 2, done.stderr
    assert "--history: " in done.stderr and "already in the history" in done.stderr
    assert "(the analysis and its report are written)" in done.stderr
    report = (out / "report.md").read_text()
    assert "The history refused this analysis" in report and "already in the history" in report
    assert (out / "tests.csv").exists() and (out / "report.html").exists()
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT COUNT(*) FROM entries").fetchone() == (2,)


def test_history_options_of_analyze_are_checked(series_archives, tmp_path):
    for args, why in ((["--fail-on-change"], "--fail-on-change needs --history DB"),
                      (["--history-by", "date"], "--history-by needs --history DB"),
                      (["--history", tmp_path / "h.db", "--history-by", "size"], "unknown order 'size'"),
                      (["--history", tmp_path / "nowhere" / "h.db"], "--history: ")):
        done = nbhbench("analyze", series_archives[0], "--no-plots", "--out", tmp_path / "x", *args, check=False)
        assert done.returncode == 2 and why in done.stderr, done.stderr
        assert not (tmp_path / "x").exists()
