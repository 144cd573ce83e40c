"""The history's shared fixtures: a series of 8 small synthetic archives
(the same campaign again and again, one cell 1.5x slower from the 5th
on), and a history (SQLite) that `nbhbench history add` made of them."""
import pytest

from history_testing import nbhbench, synthetic_series

SLOW_FROM = 5
COUNT = 8


@pytest.fixture(scope="session")
def series_archives(tmp_path_factory):
    return synthetic_series(tmp_path_factory.mktemp("series"), COUNT, SLOW_FROM, 1.5)


@pytest.fixture(scope="session")
def sqlite_history(series_archives, tmp_path_factory):
    db = tmp_path_factory.mktemp("history") / "history.db"
    done = nbhbench("history", "add", "--db", db, *series_archives)
    assert done.stdout.count("added as entry") == COUNT
    return db
