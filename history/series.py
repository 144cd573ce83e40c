"""Reading the history: its entries in order (by date, or by release of a
library), the cells and tests a selection names, and their series."""
import json
import re
from dataclasses import dataclass, field

import numpy as np

from gen.errors import NbhError
from history.archive_files import version_number
from history import summaries
from history.keys import library_family

ORDERS = ("date", "release")


@dataclass
class Entry:
    id: int
    created: str
    source: str
    archives: list = field(default_factory=list)   # dicts: name, library, release, version, created

    def archive_of(self, library=None):
        """The archive of LIBRARY (its first), else the entry's first."""
        for a in self.archives:
            if library and library_family(a["library"]) == library:
                return a
        return self.archives[0] if self.archives else {"name": "", "library": "", "release": "", "version": ""}

    def release(self, library=None):
        return self.archive_of(library)["release"]

    def label(self, by, library=None):
        """How a table or a plot names the entry: its date, or its release."""
        return self.release(library) if by == "release" else self.created[:16].replace("T", " ")


def version_key(text):
    return tuple(int(x) for x in re.findall(r"\d+", text or ""))


def read_entries(db):
    entries = {row[0]: Entry(row[0], row[1] or "", row[2] or "")
               for row in db.query("SELECT id, created, source FROM entries ORDER BY id")}
    for entry_id, name, library, release, version, created in db.query(
            "SELECT entry_id, name, library, release, library_version, created FROM archives ORDER BY id"):
        entries[entry_id].archives.append({"name": name, "library": library or "", "release": release or "",
                                           "version": version_number(version), "created": created or ""})
    return entries


def ordered(entries, by="date", library=None):
    """The entries (a dict id -> Entry, or a list) in order: by date
    (created, then id) or by release (LIBRARY's version number, then date;
    without LIBRARY each entry's first library, its family first)."""
    if by not in ORDERS:
        raise NbhError(f"--by: unknown order '{by}' ({', '.join(ORDERS)})")
    values = list(entries.values()) if isinstance(entries, dict) else list(entries)
    if by == "release":
        def release(e):
            archive = e.archive_of(library)
            return library_family(archive["library"]), version_key(archive["version"]), e.created, e.id
        return sorted(values, key=release)
    return sorted(values, key=lambda e: (e.created, e.id))


def parse_where(text, option="--where"):
    """'op=neighbor_alltoall,msize=1024' -> {op: ..., msize: ...}."""
    out = {}
    for item in (text or "").split(","):
        if not item.strip():
            continue
        name, eq, value = item.partition("=")
        if not eq or not name.strip():
            raise NbhError(f"{option}: '{item}' is not NAME=VALUE")
        out[name.strip()] = value.strip()
    return out


def check_names(db, where, what="cells"):
    """Refuses a NAME of WHERE that no cell (or test) of the history has."""
    if not where:
        return
    names = set()
    for (params,) in db.query(f"SELECT DISTINCT params FROM {what}"):
        names.update(json.loads(params))
    unknown = [n for n in where if n not in names]
    if unknown:
        known = ", ".join(sorted(names)) or "none: the history is empty"
        raise NbhError(f"--where: no {what[:-1]} of the history has a parameter '{unknown[0]}' "
                       f"(its parameters: {known})")


def params_text_of(where):
    return ",".join(f"{k}={v}" for k, v in where.items())


def matches(params, where):
    return all(params.get(k, "") == v for k, v in where.items())


def key_filter(where):
    """SQL conditions and values that keep the rows whose key holds each
    NAME=VALUE of WHERE (a superset: LIKE's _ matches any character; the
    parameters are checked exactly afterwards). Keys are NAME=VALUE,...
    (keys.py), so one selection reads only its rows."""
    conditions, values = [], []
    for name, value in where.items():
        text = f"{name}={value}".replace("%", "_")
        conditions.append("(',' || key || ',') LIKE ?")
        values.append(f"%,{text},%")
    return conditions, values


def read_cells(db, where=None, ids=None):
    """{cell id: (key, params)} of the cells whose parameters include WHERE
    (and whose ids are IDS, when given). Within one reading snapshot every
    cell is read and parsed once (the page and `analyze --history` select
    from them several times)."""
    where = where or {}
    if db.snapshot is not None:
        if "cells" not in db.snapshot:
            rows = db.query("SELECT id, key, params FROM cells")
            db.snapshot["cells"] = {cell_id: (key, params)
                                    for (cell_id, key, _), params in zip(rows, parsed(row[2] for row in rows))}
        every = db.snapshot["cells"]
        chosen = every if ids is None else (i for i in ids if i in every)
        return {i: every[i] for i in chosen if matches(every[i][1], where)}
    conditions, values = key_filter(where)
    sql = "SELECT id, key, params FROM cells" + (f" WHERE {' AND '.join(conditions)}" if conditions else "")
    out = {}
    for cell_id, key, params in selected(db, sql, bool(conditions), values, ids):
        p = json.loads(params)
        if matches(p, where):
            out[cell_id] = (key, p)
    return out


def selected(db, sql, has_where, values, ids=None):
    """The rows of SQL (with VALUES; HAS_WHERE: it has a WHERE clause already)
    whose id is one of IDS (every row where IDS is None), in chunks of
    bound parameters."""
    if ids is None:
        return db.query(sql, values)
    rows = []
    for part in chunks(ids):
        rows += db.query(sql + (" AND " if has_where else " WHERE ") + f"id IN ({','.join('?' * len(part))})",
                         values + list(part))
    return rows


def parsed(texts):
    """The JSON TEXTS (objects or lists), parsed in one call (json.loads per
    text costs more than their contents)."""
    return json.loads("[" + ",".join(texts) + "]")


def read_tests(db, where=None, guideline=None, ids=None):
    """{test id: row dict} of the tests of GUIDELINE (tag or text) whose
    parameters include WHERE (library, deployment, op, ...), and whose ids
    are IDS, when given."""
    out = {}
    conditions, values = [], []
    if guideline:
        conditions.append("(tag = ? OR guideline = ? OR (tag || ': ' || guideline) = ?)")
        values += [guideline] * 3
    for name, value in (where or {}).items():   # in the key's parameters (its third field)
        conditions.append("key LIKE ?")
        values.append(f"%{name}={value.replace('%', '_')}%")
    names = ("id", "key", "tag", "guideline", "relation", "campaign", "library", "distribution", "param_set",
             "deployment", "params", "a_params", "b_params")
    sql = f"SELECT {', '.join(names)} FROM tests" + (f" WHERE {' AND '.join(conditions)}" if conditions else "")
    rows = selected(db, sql, bool(conditions), values, ids)
    for row, params in zip(rows, parsed(row[10] for row in rows)):
        t = dict(zip(names, row))
        t["params"] = params
        if guideline and guideline not in (t["tag"], t["guideline"], f"{t['tag']}: {t['guideline']}"):
            continue
        if matches(t["params"], where or {}):
            out[t["id"]] = t
    return out


def chunks(ids, size=900):
    ids = list(ids)
    for i in range(0, len(ids), size):
        yield ids[i:i + size]


def cell_results(db, cell_ids=None, entry_ids=None):
    """{cell id: {entry id: dict(runs, median_us, p50_us, p90_us, p99_us, run_medians)}}."""
    columns = ("cell_id", "entry_id", "runs", "median_us", "p50_us", "p90_us", "p99_us", "run_medians_us")
    sql = f"SELECT {', '.join(columns)} FROM cell_results"
    rows = []
    if cell_ids is None:
        rows = db.query(sql)
    else:
        for part in chunks(cell_ids):
            rows += db.query(f"{sql} WHERE cell_id IN ({','.join('?' * len(part))})", part)
    if entry_ids is not None:
        rows = [row for row in rows if row[1] in entry_ids]
    # One parse of every row's run medians (a JSON list each): json.loads
    # per row costs more than the lists' numbers.
    medians = json.loads("[" + ",".join(row[-1] for row in rows) + "]")
    out = {}
    for row, runs in zip(rows, medians):
        r = dict(zip(columns[:-1], row[:-1]))
        r["run_medians"] = [v for v in runs if v is not None]
        out.setdefault(r["cell_id"], {})[r["entry_id"]] = r
    return out


@dataclass
class Series:
    """A cell's entries in order and, per entry, its level, run spread and
    runs (arrays; `entries`, the Entry objects, made when asked for)."""
    positions: np.ndarray   # the entries' places in ORDER
    order: list             # the library's entries in order
    entry_ids: np.ndarray
    levels: np.ndarray
    spreads: np.ndarray
    runs: np.ndarray

    @property
    def entries(self):
        return [self.order[p] for p in self.positions]


def cell_series(db, cells, entries, by="date"):
    """{cell id: Series} of CELLS ({id: (key, params)}) over ENTRIES (the
    dict read_entries returns), each in the order BY of its library (read
    from the entries' summaries: one row per entry). Within one reading
    snapshot the same cells in the same order are made once (`analyze
    --history` tests its cells online and searches them offline)."""
    if not cells:
        return {}
    if db.snapshot is None:
        return _cell_series(db, cells, entries, by)
    key = ("cell_series", by, tuple(sorted(cells)))
    if key not in db.snapshot:
        db.snapshot[key] = _cell_series(db, cells, entries, by)
    return db.snapshot[key]


def _cell_series(db, cells, entries, by):
    cell, entry, level, spread, runs = summaries.read_levels(db)
    if not len(cell):
        return {}
    keep = np.isin(cell, np.fromiter(cells, dtype=np.int64, count=len(cells))) & np.isfinite(level)
    cell, entry = cell[keep], entry[keep]
    data = np.column_stack([level[keep], spread[keep], runs[keep]])
    libraries = sorted({params.get("library", "") for _, params in cells.values()})
    top = max(entries, default=0) + 1
    position = np.full((len(libraries), top), -1, dtype=np.int64)
    ordered_entries = []
    for i, library in enumerate(libraries):
        order = ordered(entries, by, library or None)
        ordered_entries.append(order)
        position[i, [e.id for e in order]] = np.arange(len(order))
    library_of = np.zeros(max(cells) + 1, dtype=np.int64)
    for c, (_, params) in cells.items():
        library_of[c] = libraries.index(params.get("library", ""))
    lib = library_of[cell]
    pos = position[lib, entry]
    sort = np.lexsort((pos, cell))
    cell, entry, pos, lib, data = cell[sort], entry[sort], pos[sort], lib[sort], data[sort]
    bounds = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1], True])
    levels, spreads, runs = (np.ascontiguousarray(data[:, i]) for i in range(3))
    return {int(cell[a]): Series(pos[a:b], ordered_entries[lib[a]], entry[a:b], levels[a:b], spreads[a:b], runs[a:b])
            for a, b in zip(bounds[:-1].tolist(), bounds[1:].tolist())}


def test_results(db, test_ids):
    columns = ("test_id", "entry_id", "runs_a", "runs_b", "median_a_us", "median_b_us", "ratio", "ratio_ci_low",
               "ratio_ci_high", "p_value", "p_adjusted", "decision", "violated")
    out = {}
    for part in chunks(test_ids):
        for row in db.query(f"SELECT {', '.join(columns)} FROM test_results WHERE test_id IN "
                            f"({','.join('?' * len(part))})", part):
            r = dict(zip(columns, row))
            out.setdefault(r["test_id"], {})[r["entry_id"]] = r
    return out
