"""Connecting to a history: an SQLite file (Python's sqlite3) or a
PostgreSQL database (psycopg), through one small interface, so that every
query is written once with `?` placeholders.

  open_history(location, create)  Database; location: a path or postgresql://...
  default_location()              NBH_HISTORY, else history.db beside the archives
  shown(location)                 the location without any password, for messages

Transactions are explicit (both connections run in autocommit mode, so
nothing is held open between them, e.g. while `history add` analyses an
archive):
  with db.reading():   one consistent snapshot for every read inside it
                       (SQLite in WAL mode; PostgreSQL REPEATABLE READ READ ONLY)
  with db.writing():   one writer at a time (SQLite BEGIN IMMEDIATE; PostgreSQL
                       an advisory lock), committed whole or rolled back whole

Creating a history and migrating an older schema happen inside writing(),
after looking again under the lock: two processes that find no history at
once create it once, and a migration is applied once, in one transaction.
The schema version is checked on opening: a newer one is refused, an older
one migrated (when opened for writing) or refused (read only)."""
import contextlib
import datetime
import os
import sqlite3
from pathlib import Path
from urllib.parse import unquote

from gen.errors import NbhError
from history import schema

# The advisory lock of a PostgreSQL history's writers (any constant of
# its own; "nbhh" in ASCII).
WRITER_LOCK = 0x6E626868


def default_location():
    """NBH_HISTORY, else history.db beside the archives (NBH_ARCHIVES, else
    NBH_ROOT/archives, where `nbhbench archive` puts them)."""
    archives = os.environ.get("NBH_ARCHIVES") or Path(os.environ.get("NBH_ROOT", ".")) / "archives"
    return os.environ.get("NBH_HISTORY") or str(Path(archives) / "history.db")


def is_url(location):
    return str(location).startswith(("postgresql://", "postgres://"))


def shown(location):
    """LOCATION as messages show it: a URL without its password, wherever
    libpq would read one: in the user information (user:PASSWORD@host)
    and as the query parameter password=, its name percent-encoded or not."""
    location = str(location)
    if not is_url(location):
        return location
    scheme, _, rest = location.partition("://")
    cut = min([i for i in (rest.find("/"), rest.find("?")) if i >= 0], default=len(rest))
    authority, tail = rest[:cut], rest[cut:]
    user, at, hosts = authority.rpartition("@")
    if at and ":" in user:
        user = user.split(":", 1)[0] + ":***"
    path, question, query = tail.partition("?")
    if question:
        parts = []
        for item in query.split("&"):
            name, eq, value = item.partition("=")
            parts.append(f"{name}=***" if eq and unquote(name).strip() == "password" else item)
        query = "&".join(parts)
    return f"{scheme}://{user}{at}{hosts}{path}{question}{query}"


def passwords_of(location):
    """Every password LOCATION carries, as given and percent-decoded (for
    scrubbing messages a library might echo)."""
    location = str(location)
    if not is_url(location):
        return []
    rest = location.partition("://")[2]
    cut = min([i for i in (rest.find("/"), rest.find("?")) if i >= 0], default=len(rest))
    out = []
    user = rest[:cut].rpartition("@")[0]
    if ":" in user:
        out.append(user.split(":", 1)[1])
    for item in rest[cut:].partition("?")[2].split("&"):
        name, eq, value = item.partition("=")
        if eq and unquote(name).strip() == "password":
            out.append(value)
    return [p for value in out for p in {value, unquote(value)} if p]


def scrubbed(text, location):
    """TEXT with LOCATION's passwords replaced by ***."""
    text = str(text)
    for password in sorted(passwords_of(location), key=len, reverse=True):
        text = text.replace(password, "***")
    return text


class Database:
    """One connection in autocommit mode; `execute`/`executemany`/`query`
    take `?` placeholders; reading() and writing() are its transactions."""

    def __init__(self, connection, dialect, location):
        self.connection = connection
        self.dialect = dialect
        self.location = location
        self.in_transaction = False
        self.snapshot = None    # a dict while reading(): what was read once in this snapshot (series.py)

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

    def close(self):
        self.connection.close()

    @contextlib.contextmanager
    def reading(self):
        """One snapshot for the reads inside (nested: the outer one's)."""
        if self.in_transaction:
            yield self
            return
        self.execute("BEGIN" if self.dialect == "sqlite" else "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        self.in_transaction = True
        self.snapshot = {}
        try:
            yield self
        finally:
            self.in_transaction = False
            self.snapshot = None
            self.execute("COMMIT")

    @contextlib.contextmanager
    def writing(self):
        """The history for this writer alone until the block ends: committed
        when it ends, rolled back when it raises."""
        if self.in_transaction:
            raise RuntimeError("writing() inside another transaction")
        if self.dialect == "sqlite":
            self.execute("BEGIN IMMEDIATE")
        else:
            self.execute("BEGIN")
            self.execute("SELECT pg_advisory_xact_lock(?)", (WRITER_LOCK,))
        self.in_transaction = True
        try:
            yield self
        except BaseException:
            self.in_transaction = False
            self.execute("ROLLBACK")
            raise
        self.in_transaction = False
        self.execute("COMMIT")

    def tables(self):
        if self.dialect == "sqlite":
            rows = self.query("SELECT name FROM sqlite_master WHERE type = 'table'")
        else:
            rows = self.query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()")
        return {r[0] for r in rows}


def connect(location):
    if is_url(location):
        try:
            import psycopg
        except ImportError:
            raise NbhError("psycopg is missing: a PostgreSQL history needs it (run: make deps)", 1) from None
        try:
            return Database(psycopg.connect(location, connect_timeout=10, autocommit=True), "postgresql", location)
        except psycopg.Error as e:
            reason = str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__
            raise NbhError(f"{shown(location)}: cannot connect: {scrubbed(reason, location)}", 1) from None
    try:
        connection = sqlite3.connect(location, timeout=60, isolation_level=None)
        connection.execute("PRAGMA busy_timeout = 60000")
    except sqlite3.Error as e:
        raise NbhError(f"{location}: cannot open: {e}", 1) from None
    return Database(connection, "sqlite", location)


def open_history(location, create=False):
    """The history at LOCATION, its schema checked (and created or
    migrated when CREATE: the database is opened for writing). A missing
    file without CREATE, a file that is not a history, a schema of a newer
    version or one without a migration is one line (exit 2)."""
    location = str(location)
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
        try:
            with db.reading():
                tables = db.tables()
                version = schema_version(db) if "schema_info" in tables else None
        except sqlite3.DatabaseError as e:
            raise NbhError(f"{location}: not a history database ({e})") from None
        if tables and version is None:
            raise NbhError(f"{shown(location)}: not a history database (it has tables, but no schema_info)")
        if version == schema.VERSION:
            return db
        if version is not None:
            refuse_version(db, version, create)
        elif not create:
            raise NbhError(f"{shown(location)}: an empty database, not a history (nbhbench history add creates one)")
        if db.dialect == "sqlite":
            db.execute("PRAGMA journal_mode = WAL")   # readers keep their snapshot while a writer adds
        with db.writing():
            # Looked at again under the lock: another process may have created or migrated it meanwhile.
            tables = db.tables()
            if "schema_info" not in tables:
                if tables:
                    raise NbhError(f"{shown(location)}: not a history database (it has tables, but no schema_info)")
                create_schema(db)
            else:
                migrate(db, schema_version(db))
        return db
    except BaseException:
        db.close()
        raise


def create_schema(db):
    for statement in schema.statements(db.dialect):
        db.execute(statement)
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    db.executemany("INSERT INTO schema_info (name, value) VALUES (?, ?)",
                   [("version", str(schema.VERSION)), ("created", now)])


def schema_version(db):
    rows = db.query("SELECT value FROM schema_info WHERE name = 'version'")
    try:
        return int(rows[0][0])
    except (IndexError, ValueError):
        raise NbhError(f"{shown(db.location)}: its schema_info has no version: not a history database") from None


def refuse_version(db, version, migrate):
    """Raises unless a history of VERSION can be opened (for writing when MIGRATE)."""
    where = shown(db.location)
    if version > schema.VERSION:
        raise NbhError(f"{where}: schema version {version} is newer than this nbhbench's ({schema.VERSION}); "
                       "use a newer nbhbench")
    missing = [v for v in range(version, schema.VERSION) if v not in schema.MIGRATIONS]
    if missing:
        raise NbhError(f"{where}: schema version {version} is older than this nbhbench's ({schema.VERSION}) "
                       f"and cannot be migrated (no migration from version {missing[0]}); "
                       "start a new history and add the archives again")
    if not migrate:
        raise NbhError(f"{where}: schema version {version} is older than this nbhbench's ({schema.VERSION}); "
                       "nbhbench history add migrates it")


def migrate(db, version):
    """Takes the history from VERSION to schema.VERSION (inside writing():
    every step or none)."""
    if version == schema.VERSION:
        return
    refuse_version(db, version, True)
    for v in range(version, schema.VERSION):
        try:
            for step in schema.MIGRATIONS[v]:
                if callable(step):
                    step(db)
                else:
                    db.execute(schema.statements(db.dialect, [step])[0])
        except NbhError:
            raise
        except Exception as e:
            reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise NbhError(f"{shown(db.location)}: migrating from schema version {v} failed "
                           f"({scrubbed(reason, db.location)}); the history is as it was", 1) from None
    db.execute("UPDATE schema_info SET value = ? WHERE name = 'version'", (str(schema.VERSION),))
