"""The history's shared fixtures: a series of 10 small synthetic archives
(the same campaign again and again, one cell 1.5x slower from the 7th
on: 6 entries before it, so that both the online test (5 earlier entries
at least) and the offline one (3 entries on each side) can see it), each
analysed once (`nbhbench analyze --no-plots`), and a history (SQLite)
that `nbhbench history add` made of the analyses."""
import pytest

from history_testing import nbhbench, synthetic_series

SLOW_FROM = 7
COUNT = 10


@pytest.fixture(scope="session")
def series_archives(tmp_path_factory):
    return synthetic_series(tmp_path_factory.mktemp("series"), COUNT, SLOW_FROM, 1.5)


@pytest.fixture(scope="session")
def series_analyses(series_archives, tmp_path_factory):
    out = tmp_path_factory.mktemp("analyses")
    for archive in series_archives:
        nbhbench("analyze", archive, "--no-plots", "--out", out / archive.name)
    return [out / archive.name for archive in series_archives]


@pytest.fixture(scope="session")
def sqlite_history(series_analyses, tmp_path_factory):
    db = tmp_path_factory.mktemp("history") / "history.db"
    done = nbhbench("history", "add", "--db", db, *series_analyses)
    assert done.stdout.count("added as entry") == COUNT
    return db
