"""Connecting to a history: an SQLite file (Python's sqlite3) or a
PostgreSQL database (psycopg), through one small interface, so that every
query is written once with `?` placeholders.

  open_history(location, create)  Database; location: a path or postgresql://...
  default_location()              NBH_HISTORY, else history.db beside the archives

The schema version is checked on opening: a newer one is refused, an
older one migrated (when opened for writing) or refused (read only)."""
import datetime
import os
import sqlite3
from pathlib import Path

from gen.errors import NbhError
from history import schema


def default_location():
    """NBH_HISTORY, else history.db beside the archives (NBH_ARCHIVES, else
    NBH_ROOT/archives, where `nbhbench archive` puts them)."""
    archives = os.environ.get("NBH_ARCHIVES") or Path(os.environ.get("NBH_ROOT", ".")) / "archives"
    return os.environ.get("NBH_HISTORY") or str(Path(archives) / "history.db")


def is_url(location):
    return location.startswith(("postgresql://", "postgres://"))


def shown(location):
    """LOCATION as messages show it: a URL without its password."""
    if not is_url(location):
        return location
    scheme, _, rest = location.partition("://")
    credentials, at, host = rest.rpartition("@")
    if at and ":" in credentials:
        credentials = credentials.split(":", 1)[0] + ":***"
    return f"{scheme}://{credentials}{at}{host}"


class Database:
    """One connection; `execute`/`executemany`/`query` take `?` placeholders."""

    def __init__(self, connection, dialect, location):
        self.connection = connection
        self.dialect = dialect
        self.location = location

    def sql(self, text):
        return text if self.dialect == "sqlite" else text.replace("?", "%s")

    def execute(self, text, values=()):
        cursor = self.connection.cursor()
        cursor.execute(self.sql(text), tuple(values))
        return cursor

    def executemany(self, text, rows):
        rows = list(rows)
        if rows:
            self.connection.cursor().executemany(self.sql(text), rows)

    def query(self, text, values=()):
        return self.execute(text, values).fetchall()

    def insert(self, text, values=()):
        """An INSERT ... RETURNING id; the new id."""
        return self.execute(text + " RETURNING id", values).fetchone()[0]

    def commit(self):
        self.connection.commit()

    def rollback(self):
        self.connection.rollback()

    def close(self):
        self.connection.close()

    def tables(self):
        if self.dialect == "sqlite":
            rows = self.query("SELECT name FROM sqlite_master WHERE type = 'table'")
        else:
            rows = self.query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
        return {r[0] for r in rows}

    def lock(self):
        """Holds the history for one writer until commit (two adds at once
        would both see an archive as new)."""
        if self.dialect == "postgresql":
            self.execute("LOCK TABLE entries IN EXCLUSIVE MODE")
        elif not self.connection.in_transaction:
            self.execute("BEGIN IMMEDIATE")


def connect(location):
    if is_url(location):
        try:
            import psycopg
        except ImportError:
            raise NbhError("psycopg is missing: a PostgreSQL history needs it (run: make deps)", 1) from None
        try:
            return Database(psycopg.connect(location, connect_timeout=10), "postgresql", location)
        except psycopg.Error as e:
            reason = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
            raise NbhError(f"{shown(location)}: cannot connect: {reason}") from None
    try:
        connection = sqlite3.connect(location, timeout=60, isolation_level="DEFERRED")
    except sqlite3.Error as e:
        raise NbhError(f"{location}: cannot open: {e}") from None
    return Database(connection, "sqlite", location)


def open_history(location, create=False):
    """The history at LOCATION, its schema checked (and created or
    migrated when CREATE: the database is opened for writing). A missing
    file without CREATE, a file that is not a history, a schema of a newer
    version or one without a migration is one line (exit 2)."""
    if not is_url(location):
        path = Path(location)
        if path.is_dir():
            raise NbhError(f"{location}: is a directory, not a history database")
        if not path.exists():
            if not create:
                raise NbhError(f"{location}: no such history (nbhbench history add creates one)")
            if not path.parent.is_dir():
                raise NbhError(f"{location}: no such directory {path.parent}")
    db = connect(location)
    try:
        tables = db.tables()
    except sqlite3.DatabaseError as e:
        db.close()
        raise NbhError(f"{location}: not a history database ({e})") from None
    if not tables:
        if not create:
            db.close()
            raise NbhError(f"{shown(location)}: an empty database, not a history (nbhbench history add creates one)")
        create_schema(db)
    elif "schema_info" not in tables:
        db.close()
        raise NbhError(f"{shown(location)}: not a history database (it has tables, but no schema_info)")
    else:
        check_version(db, create)
    return db


def create_schema(db):
    for statement in schema.statements(db.dialect):
        db.execute(statement)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    db.executemany("INSERT INTO schema_info (name, value) VALUES (?, ?)",
                   [("version", str(schema.VERSION)), ("created", now)])
    db.commit()


def schema_version(db):
    rows = db.query("SELECT value FROM schema_info WHERE name = 'version'")
    try:
        return int(rows[0][0])
    except (IndexError, ValueError):
        raise NbhError(f"{shown(db.location)}: its schema_info has no version: not a history database") from None


def check_version(db, migrate):
    version = schema_version(db)
    if version == schema.VERSION:
        return
    where = shown(db.location)
    if version > schema.VERSION:
        db.close()
        raise NbhError(f"{where}: schema version {version} is newer than this nbhbench's ({schema.VERSION}); "
                       "use a newer nbhbench")
    missing = [v for v in range(version, schema.VERSION) if v not in schema.MIGRATIONS]
    if missing:
        db.close()
        raise NbhError(f"{where}: schema version {version} is older than this nbhbench's ({schema.VERSION}) "
                       f"and cannot be migrated (no migration from version {missing[0]}); "
                       "start a new history and add the archives again")
    if not migrate:
        db.close()
        raise NbhError(f"{where}: schema version {version} is older than this nbhbench's ({schema.VERSION}); "
                       "nbhbench history add migrates it")
    for v in range(version, schema.VERSION):
        for statement in schema.statements(db.dialect, schema.MIGRATIONS[v]):
            db.execute(statement)
    db.execute("UPDATE schema_info SET value = ? WHERE name = 'version'", (str(schema.VERSION),))
    db.commit()
