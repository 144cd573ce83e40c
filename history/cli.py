"""`nbhbench history add|list|trend|changes|page` (libexec/nbhbench-history,
whose header is the help) and `fragment`, the analyzer's --history."""
import sqlite3
import sys
from pathlib import Path

from gen.cli import Parser
from gen.errors import NbhError
from history import series
from history import segments
from history.cell_changes import ALPHA, MIN_RATIO
from history.cell_changes import COLUMNS as CHANGE_COLUMNS
from history.cell_changes import change_line, find_changes
from history.database import default_location, is_url, open_history, scrubbed, shown
from history.tables import print_table, write_csv

COMMANDS = ("add", "list", "trend", "changes", "page", "fragment")


def parser(command):
    p = Parser(f"history {command}")
    p.add_argument("--db", default=None)
    return p


def add_order(p):
    p.add_argument("--by", choices=series.ORDERS, default="date")


def add_change_options(p):
    p.add_argument("--alpha", type=float, default=ALPHA)
    p.add_argument("--min-ratio", type=float, default=MIN_RATIO)
    p.add_argument("--no-common-shift", dest="common", action="store_false")


def check_change_options(args):
    if not 0 < args.alpha < 1:
        raise NbhError(f"--alpha: {args.alpha} is not between 0 and 1")
    if args.min_ratio < 1:
        raise NbhError(f"--min-ratio: {args.min_ratio} is below 1")


def location(args):
    return args.db or default_location()


def add_command(argv):
    from history.ingest import add, prepare
    p = parser("add")
    p.add_argument("paths", nargs="+")
    args = p.parse_args(argv)
    where = location(args)
    # A history that is not there yet is created only when the first
    # argument is ready to go in: a refused argument leaves no empty file.
    exists = is_url(where) or Path(where).exists()
    db = open_history(where, create=True) if exists else None
    try:
        for path in args.paths:
            ready = prepare(db, path)
            if isinstance(ready, int):
                print(f"{path}: already in {shown(where)} (entry {ready}); nothing added")
                continue
            if db is None:
                db = open_history(where, create=True)
            entry, added = add(db, ready)
            if added:
                print(f"{path}: added as entry {entry} of {shown(where)}")
            else:
                print(f"{path}: already in {shown(where)} (entry {entry}); nothing added")
    finally:
        if db is not None:
            db.close()
    return 0


def list_command(argv):
    p = parser("list")
    add_order(p)
    p.add_argument("--library", default=None)
    args = p.parse_args(argv)
    db = open_history(location(args))
    try:
        with db.reading():
            entries = series.ordered(series.read_entries(db), args.by, args.library)
            counts = {e: (c, t, v) for e, c, t, v in db.query(
                "SELECT e.id, (SELECT COUNT(*) FROM cell_results c WHERE c.entry_id = e.id), "
                "(SELECT COUNT(*) FROM test_results t WHERE t.entry_id = e.id), "
                "(SELECT COUNT(*) FROM test_results t WHERE t.entry_id = e.id AND t.decision = 'violated') "
                "FROM entries e")}
            campaigns = dict(db.query("SELECT entry_id, MIN(campaign) FROM archives GROUP BY entry_id"))
        rows = [{"entry": e.id, "date": e.created, "campaign": campaigns.get(e.id, ""),
                 "releases": "; ".join(a["release"] for a in e.archives),
                 "archives": " ".join(a["name"] for a in e.archives),
                 "cells": counts[e.id][0], "tests": counts[e.id][1], "violated": counts[e.id][2]} for e in entries]
        print(f"{shown(db.location)}: {len(rows)} entries, by {args.by}")
        if rows:
            print_table(rows, ("entry", "date", "campaign", "releases", "cells", "tests", "violated", "archives"))
    finally:
        db.close()
    return 0


def trend_command(argv):
    from history.trend import trend
    p = parser("trend")
    add_order(p)
    add_change_options(p)
    p.add_argument("--cell", default=None)
    p.add_argument("--guideline", default=None)
    p.add_argument("--where", default=None)
    p.add_argument("--out", default="trend")
    p.add_argument("--no-plot", action="store_true")
    args = p.parse_args(argv)
    check_change_options(args)
    if bool(args.cell) == bool(args.guideline):
        raise NbhError("history trend: name one cell (--cell NAME=VALUE,...) or one guideline (--guideline TAG)")
    db = open_history(location(args))
    try:
        return trend(db, args)
    finally:
        db.close()


def changes_command(argv):
    p = parser("changes")
    add_order(p)
    add_change_options(p)
    p.add_argument("--where", default=None)
    p.add_argument("--csv", default=None)
    args = p.parse_args(argv)
    check_change_options(args)
    where = series.parse_where(args.where)
    db = open_history(location(args))
    try:
        with db.reading():
            series.check_names(db, where, "cells")
            found = find_changes(db, args.by, where, args.alpha, args.min_ratio, common=args.common)
    finally:
        db.close()
    if args.csv:
        write_csv(args.csv, [{**r, "line": change_line(r)} for r in found.rows], CHANGE_COLUMNS + ("line",))
    for r in found.rows:
        print(change_line(r))
    print(f"{len(found.rows)} change point(s) in {found.cells} cell series and {found.commons} series of the entries' "
          f"common shifts, by {args.by}: {found.searched} searched (circular binary segmentation), {found.chosen} "
          f"changed at a false discovery rate of {args.alpha} across them, size >= {args.min_ratio}x; {found.too_few} "
          f"cells with too few entries (fewer than {segments.MIN_LENGTH})"
          + ("" if args.common else "; the entries' common shift left in (--no-common-shift)"))
    return 0


def page_command(argv):
    from history.page import write_page
    p = parser("page")
    add_order(p)
    add_change_options(p)
    p.add_argument("--out", default="history.html")
    p.add_argument("--max-cells", type=int, default=2000)
    args = p.parse_args(argv)
    check_change_options(args)
    if args.max_cells < 0:
        raise NbhError(f"--max-cells: {args.max_cells} is below 0 (0 draws no chart)")
    db = open_history(location(args))
    try:
        write_page(db, Path(args.out), args.by, args.alpha, args.min_ratio, args.max_cells, common=args.common)
    finally:
        db.close()
    print(Path(args.out).resolve())
    return 0


def fragment_command(argv):
    from history.fragment import write_fragment
    p = parser("fragment")
    add_order(p)
    p.add_argument("analysis")
    args = p.parse_args(argv)
    db = open_history(location(args), create=True)
    try:
        write_fragment(db, Path(args.analysis), args.by)
    finally:
        db.close()
    return 0


def dispatch(argv):
    if not argv or argv[0] not in COMMANDS:
        raise NbhError(f"usage: nbhbench history {'|'.join(COMMANDS[:-1])} ... (see: nbhbench history --help)")
    handler = globals()[f"{argv[0]}_command"]
    databases = [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == "--db"] + \
        [a.split("=", 1)[1] for a in argv if a.startswith("--db=")] + [default_location()]
    try:
        return handler(argv[1:])
    except ImportError as e:
        raise NbhError(f"history: {e} (run: make deps)", 1) from None
    except sqlite3.Error as e:
        raise NbhError(f"history: the database failed: {e}", 1) from None
    except NbhError as e:
        message = str(e)
        for db in databases:
            message = scrubbed(message, db)
        if message == str(e):
            raise
        raise NbhError(message, e.code) from None
    except Exception as e:
        if type(e).__module__.startswith("psycopg"):
            reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            for db in databases:
                reason = scrubbed(reason, db)
            raise NbhError(f"history: the database failed: {reason}", 1) from None
        raise
    finally:
        sys.stdout.flush()
