"""The same history in PostgreSQL (a real server the test starts,
postgresql_server.py): `history add`, `list`, `changes` and `analyze
--history` through the same code, with the same contents as SQLite."""
import csv
import json
import sqlite3

import pytest

from history.database import open_history
from history_testing import nbhbench
from postgresql_server import PostgresServer

QUERY = ("SELECT c.key, r.entry_id, r.runs, r.median_us, r.run_medians_us FROM cell_results r "
         "JOIN cells c ON c.id = r.cell_id ORDER BY c.key, r.entry_id")


@pytest.fixture(scope="module")
def server():
    s = PostgresServer().start()
    try:
        yield s
    finally:
        s.stop()


def test_a_postgresql_history_holds_what_an_sqlite_one_holds(server, series_archives, series_analyses, sqlite_history,
                                                             tmp_path):
    url = server.url("history")
    done = nbhbench("history", "add", "--db", url, *series_analyses)
    assert done.stdout.count("added as entry") == 10
    assert "already in" in nbhbench("history", "add", "--db", url, series_archives[2]).stdout
    db = open_history(url)
    try:
        assert db.dialect == "postgresql"
        held = [(k, e, n, round(m, 9), json.loads(r)) for k, e, n, m, r in db.query(QUERY)]
        archives = db.query("SELECT name, release, created FROM archives ORDER BY entry_id")
    finally:
        db.close()
    with sqlite3.connect(sqlite_history) as c:
        expected = [(k, e, n, round(m, 9), json.loads(r)) for k, e, n, m, r in c.execute(QUERY)]
    assert held == expected and len(held) == 10 * 24
    assert [a[1] for a in archives] == [f"openmpi 5.0.{i}" for i in range(1, 11)]

    assert "10 entries, by date" in nbhbench("history", "list", "--db", url).stdout
    out = tmp_path / "changes.csv"
    nbhbench("history", "changes", "--db", url, "--csv", out)
    with open(out, newline="") as f:
        found = list(csv.DictReader(f))
    assert [(c["op"], c["begins_archive"]) for c in found] == [("neighbor_allgather", "a07")]
    # The same page from both (rows in one order, whatever each database returns first).
    pages = []
    for db in (url, sqlite_history):
        out = tmp_path / f"page-{len(pages)}.html"
        nbhbench("history", "page", "--db", db, "--out", out)
        text = out.read_text()
        pages.append(text[text.index("<h2 id=\"entries\">"):])
    assert pages[0] == pages[1]


def test_analyze_with_a_postgresql_history(server, series_archives, series_analyses, tmp_path):
    url = server.url("analyses")
    nbhbench("history", "add", "--db", url, *series_analyses[:9])
    out = tmp_path / "analysis"
    nbhbench("analyze", series_archives[9], "--history", url, "--out", out, "--no-plots")
    assert json.loads((out / "history.json").read_text())["entry"] == 10
    assert "since" in (out / "report.md").read_text()


def test_a_server_that_is_not_there_is_one_line(server):
    url = f"postgresql://postgres@127.0.0.1:{server.port}/nosuchdb"
    done = nbhbench("history", "list", "--db", url, check=False)
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1 and "cannot connect" in done.stderr
    assert "nosuchdb" in done.stderr
