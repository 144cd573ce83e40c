"""Adding to the history: an analysis (its archives checked and their
provenance read), or an archive, analysed first on its own (`nbhbench
analyze ARCHIVE --no-plots`, with the archive's own assessment and the
default thresholds). One entry per analysis, in one transaction: a
failure leaves the history as it was. An analysis whose archives are all
in the history already is a no-op, and so is an archive whose launches
(its runs' attempts, history/archive_files.py) all are (the same workspace
archived again); one that shares some of them with an entry is refused
(its runs would count twice)."""
import datetime
import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from gen.errors import NbhError
from history import keys
from history.analysis_files import Analysis
from history.archive_files import read_archive
from history.database import shown

ARCHIVE_COLUMNS = ("manifest_sha256", "name", "directory", "campaign", "library", "library_version", "release",
                   "configure", "param_sets", "environment", "machine", "scheduler", "created", "nbhbench_commit",
                   "runs", "runs_done")
# tests.csv columns the history keeps in columns of its own (the rest: `extra`).
TEST_VALUES = ("runs_a", "runs_b", "median_a_us", "median_b_us", "ratio", "ratio_ci_low", "ratio_ci_high",
               "p_value", "p_adjusted", "decision", "violated")
NOT_EXTRA = set(TEST_VALUES) | {"guideline_no", "set", "tag", "guideline", "relation", "a_params", "b_params",
                                "overview_plot", "focus_plot"}


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def number(text):
    """A CSV cell as a float (None when empty or not a number)."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if np.isfinite(value) else None


def integer(text):
    value = number(text)
    return None if value is None else int(value)


def packed(values):
    """Floats as a JSON list (the run medians of a cell), to 7 significant
    digits (a run median is a median of timings: its 8th digit is noise)."""
    return "[" + ",".join(f"{v:.7g}" if np.isfinite(v) else "null" for v in values) + "]"


def records(table):
    """The rows of a DataFrame as dicts (pandas' to_dict is 10x slower)."""
    columns = list(table.columns)
    return [dict(zip(columns, row)) for row in zip(*(table[c].tolist() for c in columns))]


def run_ranges(numbers):
    """Run numbers as ranges: [1, 2, 3, 5, 7, 8] -> '1-3,5,7-8'."""
    out = []
    for n in numbers:
        if out and n == out[-1][1] + 1:
            out[-1][1] = n
        else:
            out.append([n, n])
    return ",".join(f"{a}-{b}" if a != b else f"{a}" for a, b in out)


def is_archive(path):
    return (Path(path) / "archive.json").is_file()


def analyse_archive(path, directory):
    """`nbhbench analyze PATH --no-plots --out DIRECTORY`; its last line on failure."""
    root = Path(os.environ.get("NBH_ROOT", Path(__file__).resolve().parents[1]))
    done = subprocess.run([str(root / "nbhbench"), "analyze", str(path), "--no-plots", "--out", str(directory)],
                          capture_output=True, text=True)
    if done.returncode != 0:
        said = [line for line in done.stderr.splitlines() if line.strip()]
        reason = said[-1].removeprefix("nbhbench: ") if said else f"exit {done.returncode}"
        raise NbhError(f"{path}: the analysis failed: {reason}", 2)


def add(db, path):
    """Adds the archive or analysis at PATH; (entry id, whether it was added)."""
    if is_archive(path):
        archive = read_archive(path)
        known = entry_of_archives(db, [archive])
        if known is None:
            known = entry_of_launches(db, [archive])
        if known is not None:
            return known, False
        with tempfile.TemporaryDirectory(prefix="nbh-history-") as scratch:
            out = Path(scratch) / "analysis"
            analyse_archive(path, out)
            return add_analysis(db, Analysis(out), source=str(Path(path).resolve()), archives=[archive])
    return add_analysis(db, Analysis(path), source=str(Path(path).resolve()))


def entry_of_archives(db, archives):
    """The entry that holds every one of ARCHIVES, None if none does;
    refuses ARCHIVES that an entry holds only some of."""
    sums = [a["manifest_sha256"] for a in archives]
    rows = db.query(f"SELECT manifest_sha256, entry_id, name FROM archives WHERE manifest_sha256 IN "
                    f"({','.join('?' * len(sums))})", sums)
    if not rows:
        return None
    entries = {r[1] for r in rows}
    if len(rows) == len(sums) and len(entries) == 1:
        count = db.query("SELECT COUNT(*) FROM archives WHERE entry_id = ?", (rows[0][1],))[0][0]
        if count == len(sums):
            return rows[0][1]
    raise NbhError(f"{rows[0][2]}: already in the history {shown(db.location)} (entry {rows[0][1]}) with other "
                   "archives: analyse it with the same archives, or add the others on their own")


def entry_of_launches(db, archives):
    """The entry that holds every launch of ARCHIVES already (an archive made
    again from the same workspace: another manifest, the same runs), None
    if it holds none of them; refuses ARCHIVES that share some launches
    with the history (their runs would count twice)."""
    mine = {digest: (run_id, attempt) for a in archives for run_id, attempt, digest in a["launches"]}
    if not mine:
        return None
    digests = sorted(mine)
    rows = []
    for start in range(0, len(digests), 500):
        part = digests[start:start + 500]
        rows += db.query(f"SELECT l.launch, a.entry_id, a.name FROM launches l JOIN archives a ON a.id = l.archive_id "
                         f"WHERE l.launch IN ({','.join('?' * len(part))})", part)
    if not rows:
        return None
    entries = {r[1] for r in rows}
    if len(rows) == len(mine) and len(entries) == 1:
        return rows[0][1]
    first = min(rows, key=lambda r: (mine[r[0]][0], mine[r[0]][1] or 0))
    run_id, attempt = mine[first[0]]
    run = f"run {run_id}" + (f" attempt {attempt}" if attempt is not None else "")
    names = ", ".join(a["name"] for a in archives)
    raise NbhError(f"{names}: {len(rows)} of its {len(mine)} launches are in the history {shown(db.location)} "
                   f"already (entry {first[1]}, archive {first[2]}: {run}): an archive of the same workspace, "
                   "whose runs would count twice; add the archive that holds all of them on its own")


def add_analysis(db, analysis, source, archives=None):
    """Adds ANALYSIS (an Analysis); ARCHIVES: read_archive of its archives,
    read here when not given. (entry id, whether it was added)."""
    if archives is None:
        archives = [read_archive(d) for d in analysis.archives["directory"]]
    db.lock()
    known = entry_of_archives(db, archives)
    if known is None:
        known = entry_of_launches(db, archives)
    if known is not None:
        db.rollback()
        return known, False
    try:
        entry = insert_entry(db, analysis, source, archives)
        db.commit()
    except BaseException:
        db.rollback()
        raise
    return entry, True


def insert_entry(db, analysis, source, archives):
    info = analysis.info
    created = min((a["created"] for a in archives if a["created"]), default=now())
    entry = db.insert("INSERT INTO entries (added, source, analysed_by, p_thres, v_thres, hold_ratio, adjust, "
                      "assessment, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      (now(), source, info.get("version"), info.get("p_thres"), info.get("v_thres"),
                       info.get("hold_ratio"), info.get("adjust"), info.get("assessment"), created))
    archive_ids = {}
    for a in archives:
        archive_ids[a["name"]] = db.insert(
            f"INSERT INTO archives (entry_id, {', '.join(ARCHIVE_COLUMNS)}) "
            f"VALUES (?, {', '.join('?' * len(ARCHIVE_COLUMNS))})", [entry] + [a[c] for c in ARCHIVE_COLUMNS])
        db.executemany("INSERT INTO launches (launch, archive_id, run_id, attempt) VALUES (?, ?, ?, ?)",
                       [(digest, archive_ids[a["name"]], run_id, attempt) for run_id, attempt, digest in a["launches"]])
    runs = analysis.run_medians[["archive", "run_id"]].drop_duplicates().reset_index(drop=True)
    unknown = sorted(set(runs["archive"]) - set(archive_ids))
    if unknown:
        raise NbhError(f"{analysis.directory / 'run_medians.csv'}: archive {unknown[0]} is not in archives.csv: "
                       "damaged analysis")
    run_no = {(r.archive, r.run_id): i + 1 for i, r in enumerate(runs.itertuples())}
    db.executemany("INSERT INTO runs (entry_id, run_no, archive_id, run_id) VALUES (?, ?, ?, ?)",
                   [(entry, n, archive_ids[a], r) for (a, r), n in run_no.items()])
    insert_cells(db, entry, analysis, run_no)
    insert_tests(db, entry, analysis)
    return entry


def ids_of(db, table, rows):
    """{key: id} for ROWS (key, columns...) of TABLE (cells or tests),
    inserting the keys it does not have yet."""
    have = dict(db.query(f"SELECT key, id FROM {table}"))
    new = [r for r in rows if r[0] not in have]
    if new:
        columns = {"cells": "key, library, param_set, deployment, op, params",
                   "tests": "key, tag, guideline, relation, library, param_set, deployment, params, a_params, b_params"}
        db.executemany(f"INSERT INTO {table} ({columns[table]}) VALUES ({', '.join('?' * len(new[0]))})", new)
        have = dict(db.query(f"SELECT key, id FROM {table}"))
    return have


def insert_cells(db, entry, analysis, run_no):
    cells = records(analysis.cells)
    params = analysis.params
    key_of = {}
    rows = []
    for c in cells:
        p = keys.params_of(c, params)
        key_of[c["cell"]] = keys.cell_key(p)
        rows.append((key_of[c["cell"]], p.get("library", ""), c.get("param_set", ""), c.get("deployment", ""),
                     c.get("op", ""), keys.as_json(p)))
    ids = ids_of(db, "cells", rows)
    rm = analysis.run_medians
    order = np.argsort(rm["cell"].astype(int).to_numpy(), kind="stable")
    cell_of_row = rm["cell"].to_numpy()[order]
    runs = [run_no[k] for k in zip(rm["archive"].to_numpy()[order], rm["run_id"].to_numpy()[order])]
    medians = pd.to_numeric(rm["median_us"], errors="coerce").to_numpy()[order]
    bounds = np.flatnonzero(np.r_[True, cell_of_row[1:] != cell_of_row[:-1], True])
    per_cell = {}
    for start, end in zip(bounds[:-1], bounds[1:]):
        per_cell[cell_of_row[start]] = (runs[start:end], medians[start:end])
    out = []
    for c in cells:
        if c["cell"] not in per_cell or number(c["median_us"]) is None:
            continue
        nos, values = per_cell[c["cell"]]
        order_of_runs = np.argsort(nos, kind="stable")
        out.append((ids[key_of[c["cell"]]], entry, len(nos), number(c["median_us"]), number(c.get("p50_us")),
                    number(c.get("p90_us")), number(c.get("p99_us")), run_ranges([nos[i] for i in order_of_runs]),
                    packed(values[order_of_runs])))
    db.executemany("INSERT INTO cell_results (cell_id, entry_id, runs, median_us, p50_us, p90_us, p99_us, run_nos, "
                   "run_medians_us) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", out)


def insert_tests(db, entry, analysis):
    tests = records(analysis.tests)
    params = [p for p in analysis.params if p in analysis.tests.columns]
    extra_columns = [c for c in analysis.tests.columns if c not in NOT_EXTRA and c not in params]
    key_of = []
    rows = {}
    for t in tests:
        p = keys.params_of(t, params)
        key = keys.test_key(t, p)
        key_of.append(key)
        rows[key] = (key, t.get("tag", ""), t["guideline"], t.get("relation", ""), p.get("library", ""),
                     t.get("param_set", ""), t.get("deployment", ""), keys.as_json(p), t.get("a_params", ""),
                     t.get("b_params", ""))
    if len(rows) < len(tests):
        raise NbhError(f"{analysis.directory / 'tests.csv'}: two tests with the same guideline and parameters: "
                       "damaged analysis")
    ids = ids_of(db, "tests", list(rows.values()))
    out = []
    for t, key in zip(tests, key_of):
        violated = str(t.get("violated", "")).upper()
        out.append((ids[key], entry, integer(t.get("runs_a")), integer(t.get("runs_b")), number(t.get("median_a_us")),
                    number(t.get("median_b_us")), number(t.get("ratio")), number(t.get("ratio_ci_low")),
                    number(t.get("ratio_ci_high")), number(t.get("p_value")), number(t.get("p_adjusted")),
                    t.get("decision", ""), 1 if violated == "TRUE" else 0 if violated == "FALSE" else None,
                    json.dumps({c: t[c] for c in extra_columns if t.get(c, "") != ""}, separators=(",", ":"))))
    db.executemany("INSERT INTO test_results (test_id, entry_id, runs_a, runs_b, median_a_us, median_b_us, ratio, "
                   "ratio_ci_low, ratio_ci_high, p_value, p_adjusted, decision, violated, extra) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", out)
