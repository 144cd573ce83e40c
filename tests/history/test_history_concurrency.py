"""Shared use of one history (SQLite and a real PostgreSQL server,
postgresql_server.py): processes that create a new history at once all
succeed and create it once; a reading command sees one snapshot while
entries are added; no transaction stays open while `history add`
analyses an archive; a password in the URL, in any form libpq reads, is
never printed nor written."""
import json
import sqlite3
import subprocess

import pytest

from history import ingest
from history.database import open_history, shown
from history_testing import NBHBENCH, ROOT, nbhbench
from postgresql_server import PostgresServer

PROCESSES = 4


@pytest.fixture(scope="module")
def server():
    s = PostgresServer().start()
    try:
        yield s
    finally:
        s.stop()


def add_at_once(db, analyses):
    """`nbhbench history add --db DB ANALYSIS` for each of ANALYSES, all started together."""
    running = [subprocess.Popen([str(NBHBENCH), "history", "add", "--db", str(db), str(a)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env={"NBH_ROOT": str(ROOT), "PATH": "/usr/bin:/bin"})
               for a in analyses]
    return [(p.wait(timeout=600), p.stdout.read(), p.stderr.read()) for p in running]


def test_processes_that_create_an_sqlite_history_at_once_all_succeed(series_analyses, tmp_path):
    for trial in range(3):
        db = tmp_path / f"h{trial}.db"
        done = add_at_once(db, series_analyses[:PROCESSES])
        assert all(code == 0 for code, _, _ in done), done
        with sqlite3.connect(db) as c:
            assert c.execute("SELECT COUNT(*) FROM entries").fetchone() == (PROCESSES,)
            assert c.execute("SELECT value FROM schema_info WHERE name = 'version'").fetchall() == [("2",)]


def test_processes_that_create_a_postgresql_history_at_once_all_succeed(server, series_analyses):
    for trial in range(3):
        url = server.url(f"race{trial}")
        done = add_at_once(url, series_analyses[:PROCESSES])
        assert all(code == 0 for code, _, _ in done), done
        db = open_history(url)
        try:
            assert db.query("SELECT COUNT(*) FROM entries") == [(PROCESSES,)]
        finally:
            db.close()


def snapshot_check(location, analysis):
    """Reads the entries, lets another connection add ANALYSIS, reads again
    inside the same snapshot: (entries before, entry ids of cell_results
    then, entries after the snapshot)."""
    reader = open_history(location)
    writer = open_history(location, create=True)
    try:
        with reader.reading():
            before = {r[0] for r in reader.query("SELECT id FROM entries")}
            ingest.add(writer, ingest.prepare(writer, analysis))
            seen = {r[0] for r in reader.query("SELECT DISTINCT entry_id FROM cell_results")}
        after = {r[0] for r in reader.query("SELECT id FROM entries")}
    finally:
        reader.close()
        writer.close()
    return before, seen, after


def test_a_reader_keeps_its_snapshot_while_an_entry_is_added(server, series_analyses, tmp_path):
    for location in (str(tmp_path / "h.db"), server.url("snapshot")):
        nbhbench("history", "add", "--db", location, *series_analyses[:3])
        before, seen, after = snapshot_check(location, series_analyses[3])
        assert before == seen == {1, 2, 3} and after == {1, 2, 3, 4}, location


def page_while_adding(location, analyses, out):
    """Pages written again and again while ANALYSES are added one by one."""
    adding = subprocess.Popen([str(NBHBENCH), "history", "add", "--db", location, *map(str, analyses)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pages = []
    while adding.poll() is None or not pages:
        pages.append(nbhbench("history", "page", "--db", location, "--out", out, check=False))
    assert adding.wait() == 0, adding.stderr.read()
    return pages


def test_pages_written_while_entries_are_added_never_fail(server, series_analyses, tmp_path):
    for location in (str(tmp_path / "h.db"), server.url("pages")):
        nbhbench("history", "add", "--db", location, *series_analyses[:2])
        pages = page_while_adding(location, series_analyses[2:7], tmp_path / "page.html")
        assert all(p.returncode == 0 for p in pages), [p.stderr for p in pages if p.returncode]


def test_no_transaction_is_open_while_an_archive_is_analysed(server, series_archives, monkeypatch):
    url = server.url("idle")
    nbhbench("history", "add", "--db", url, series_archives[0])
    db = open_history(url, create=True)
    watcher = open_history(url)
    states = []
    analyse = ingest.analyse_archive

    def watched(path, directory):
        pid = db.query("SELECT pg_backend_pid()")[0][0]
        states.append(watcher.query("SELECT state FROM pg_stat_activity WHERE pid = ?", (pid,))[0][0])
        return analyse(path, directory)

    monkeypatch.setattr(ingest, "analyse_archive", watched)
    try:
        prepared = ingest.prepare(db, series_archives[1])
        assert states == ["idle"]   # not "idle in transaction"
        assert ingest.add(db, prepared) == (2, True)
    finally:
        db.close()
        watcher.close()


URLS = ("postgresql://postgres:s3cret@127.0.0.1:{port}/masked",
        "postgresql://postgres@127.0.0.1:{port}/masked?password=s3cret",
        "postgresql://postgres@127.0.0.1:{port}/masked?sslmode=disable&%70assword=s3cret",
        "postgres://postgres:s3cret@127.0.0.1:{port},127.0.0.1:{port}/masked?password=s3cret")


def test_shown_masks_the_password_in_every_form():
    for url in URLS:
        text = shown(url.format(port=5432))
        assert "s3cret" not in text and "***" in text and "127.0.0.1:5432" in text, text
    assert shown("/tmp/history.db") == "/tmp/history.db"


def test_a_password_is_never_printed_nor_written(server, series_archives, tmp_path):
    server.create_database("masked")
    for i, url in enumerate(URLS):
        url = url.format(port=server.port)
        out = tmp_path / f"analysis{i}"
        done = nbhbench("analyze", series_archives[i], "--history", url, "--out", out, "--no-plots")
        assert "s3cret" not in done.stdout + done.stderr
        for name in ("history.json", "report.md", "report.html", "history.html"):
            assert "s3cret" not in (out / name).read_text(), name
        assert "***" in json.loads((out / "history.json").read_text())["database"]
        listed = nbhbench("history", "list", "--db", url)
        assert "s3cret" not in listed.stdout + listed.stderr
    # Failing to connect: the message names the server, never the password.
    for url in URLS:
        bad = url.format(port=server.port).replace("/masked", "/nosuchdb")
        done = nbhbench("history", "list", "--db", bad, check=False)
        assert done.returncode == 1 and "cannot connect" in done.stderr and "s3cret" not in done.stderr
