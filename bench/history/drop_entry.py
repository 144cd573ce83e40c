"""make bench (bench/bench-history): ENTRY taken out of a copy of a
history, every row of it, so that adding its analysis again is a new
entry (the time of `analyze --history` when CI adds an archive the
history does not hold yet).
python bench/history/drop_entry.py DB ENTRY"""
import sqlite3
import sys

TABLES = ("cell_results", "test_results", "runs", "verdict_counts", "entry_levels")


def drop(path, entry):
    with sqlite3.connect(path) as db:
        for table in TABLES:
            db.execute(f"DELETE FROM {table} WHERE entry_id = ?", (entry,))
        db.execute("DELETE FROM launches WHERE archive_id IN (SELECT id FROM archives WHERE entry_id = ?)", (entry,))
        db.execute("DELETE FROM archives WHERE entry_id = ?", (entry,))
        db.execute("DELETE FROM entries WHERE id = ?", (entry,))


if __name__ == "__main__":
    drop(sys.argv[1], int(sys.argv[2]))
