"""Adding to the history: an analysis (its archives checked and their
provenance read), or an archive, analysed first on its own (`nbhbench
analyze ARCHIVE --no-plots`, with the archive's own assessment and the
default thresholds; its warnings are passed on).

Each argument is prepared first, outside any transaction (the archive
checked, analysed, the analysis's tables read and checked, every row made
ready), and then written as one entry in one short transaction: a failure
leaves the history as it was, and nothing is held open while an archive
is analysed. An analysis whose archives are all in the history already is
a no-op, and so is an archive whose launches (its runs' attempts,
history/archive_files.py) all are (the same workspace archived again); one
that shares some of them with an entry is refused (its runs would count
twice). Both are checked when preparing and again under the writer's lock."""
import datetime
import json
import math
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from gen.errors import NbhError
from history import keys, summaries
from history.analysis_files import Analysis
from history.archive_files import read_archive
from history.database import shown
from history.departure import levels_and_spreads

ARCHIVE_COLUMNS = ("manifest_sha256", "name", "directory", "campaign", "library", "library_version", "release",
                   "configure", "param_sets", "environment", "machine", "scheduler", "created", "nbhbench_commit",
                   "runs", "runs_done")
# tests.csv columns the history keeps in columns of its own (the rest: `extra`).
TEST_VALUES = ("runs_a", "runs_b", "median_a_us", "median_b_us", "ratio", "ratio_ci_low", "ratio_ci_high",
               "p_value", "p_adjusted", "decision", "violated")
NOT_EXTRA = set(TEST_VALUES) | {"guideline_no", "set", "tag", "guideline", "relation", "a_params", "b_params",
                                "overview_plot", "focus_plot"}
CELL_COLUMNS = ("key", "campaign", "library", "distribution", "param_set", "deployment", "op", "params")
TEST_COLUMNS = ("key", "tag", "guideline", "relation", "campaign", "library", "distribution", "param_set",
                "deployment", "params", "a_params", "b_params")


@dataclass
class Prepared:
    """An entry ready to be written: its rows without the database's ids."""
    source: str
    archives: list          # read_archive() of each archive
    info: dict              # analysis.json
    runs: list              # (archive name, run id, run number)
    cells: dict             # key -> row of CELL_COLUMNS
    cell_results: list      # (cell key, runs, median, p50, p90, p99, run_nos, run_medians, level, spread)
                            # (a spread of None: one run; summaries store 0)
    tests: dict             # key -> row of TEST_COLUMNS
    test_results: list      # (test key, values of TEST_VALUES..., extra)


def now():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def number(text):
    """A CSV cell as a float (None when empty or not a number)."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def numbers(column):
    """number() of each cell of a table's COLUMN (a list; None where the table has no such column)."""
    return [number(text) for text in column] if column is not None else None


def integer(text):
    value = number(text)
    return None if value is None else int(value)


def packed(values):
    """Floats as a JSON list (the run medians of a cell), to 7 significant
    digits (a run median is a median of timings: its 8th digit is noise)."""
    values = np.asarray(values, float)
    if np.isfinite(values).all():      # one format call for the list ('%.7g' is f"{v:.7g}")
        return ("[" + "%.7g," * len(values))[:-1] % tuple(values.tolist()) + "]" if len(values) else "[]"
    return "[" + ",".join(f"{v:.7g}" if math.isfinite(v) else "null" for v in values.tolist()) + "]"


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
    """`nbhbench analyze PATH --no-plots --out DIRECTORY`; its warnings
    (lines 'nbhbench: warning: ...') passed on to stderr, naming PATH; its
    last line on failure (exit 2 where the analysis found bad input, 1
    where it failed otherwise)."""
    root = Path(os.environ.get("NBH_ROOT", Path(__file__).resolve().parents[1]))
    done = subprocess.run([str(root / "nbhbench"), "analyze", str(path), "--no-plots", "--out", str(directory)],
                          capture_output=True, text=True)
    said = [line for line in done.stderr.splitlines() if line.strip()]
    for line in said:
        if line.startswith("nbhbench: warning: "):
            print(f"nbhbench: warning: {path}: {line.removeprefix('nbhbench: warning: ')}", file=sys.stderr)
    if done.returncode != 0:
        reason = said[-1].removeprefix("nbhbench: ") if said else f"exit {done.returncode}"
        raise NbhError(f"{path}: the analysis failed: {reason}", 2 if done.returncode == 2 else 1)


def known_entry(db, archives):
    """The entry holding ARCHIVES (known_of), in a snapshot; None without a history."""
    if db is None:
        return None
    with db.reading():
        return known_of(db, archives)


def known_of(db, archives):
    """The entry holding ARCHIVES: by their manifests (entry_of_archives),
    else by their launches (entry_of_launches); None if none does."""
    known = entry_of_archives(db, archives)
    return known if known is not None else entry_of_launches(db, archives)


def prepare(db, path):
    """PATH (an archive or an analysis) made ready to add: a Prepared, or
    the entry id (an int) that holds it already. DB (None: no history yet)
    is read only to skip archives it holds; no transaction stays open."""
    if is_archive(path):
        archive = read_archive(path)
        known = known_entry(db, [archive])
        if known is not None:
            return known
        with tempfile.TemporaryDirectory(prefix="nbh-history-") as scratch:
            out = Path(scratch) / "analysis"
            analyse_archive(path, out)
            return prepared_of(Analysis(out), str(Path(path).resolve()), [archive])
    analysis = Analysis(path)
    archives = [read_archive(d) for d in analysis.archives["directory"]]
    known = known_entry(db, archives)
    if known is not None:
        return known
    return prepared_of(analysis, str(Path(path).resolve()), archives)


def add(db, prepared):
    """Writes PREPARED as one entry (checked again under the writer's
    lock: another process may have added its archives meanwhile);
    (entry id, whether it was added)."""
    with db.writing():
        known = known_of(db, prepared.archives)
        if known is not None:
            return known, False
        return insert_entry(db, prepared), True


def add_analysis(db, analysis, source):
    """`analyze --history`: adds the staged ANALYSIS (an Analysis);
    (entry id, whether it was added). An analysis whose archives the
    history holds already (a CI job run again) is not prepared, as
    prepare() skips it."""
    archives = [read_archive(d) for d in analysis.archives["directory"]]
    known = known_entry(db, archives)
    if known is not None:
        return known, False
    return add(db, prepared_of(analysis, source, archives))


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


def campaigns_by_library(analysis, archives):
    """{library name: its archives' campaigns, joined by +} of ANALYSIS."""
    by_name = {a["name"]: a for a in archives}
    out = {}
    for name in analysis.archives["archive"]:
        a = by_name.get(name)
        if a is not None:
            out.setdefault(a["library"], set()).add(a["campaign"])
    return {library: "+".join(sorted(c for c in campaigns if c)) for library, campaigns in out.items()}


def campaign_of(row, campaigns):
    """A cell's or test's campaign: that of its library's archives (of
    every archive when the library names none of them)."""
    return campaigns.get(row.get("library", ""), "+".join(sorted({c for v in campaigns.values()
                                                                   for c in v.split("+") if c})))


def prepared_of(analysis, source, archives):
    """The rows of ANALYSIS (checked: a damaged analysis is refused here,
    before anything is written)."""
    names = {a["name"] for a in archives}
    runs = analysis.run_medians[["archive", "run_id"]].drop_duplicates().reset_index(drop=True)
    unknown = sorted(set(runs["archive"]) - names)
    if unknown:
        raise NbhError(f"{analysis.directory / 'run_medians.csv'}: archive {unknown[0]} is not in archives.csv: "
                       "damaged analysis")
    run_no = {(r.archive, r.run_id): i + 1 for i, r in enumerate(runs.itertuples())}
    campaigns = campaigns_by_library(analysis, archives)
    cells, cell_results = cell_rows(analysis, run_no, campaigns)
    tests, test_results = test_rows(analysis, campaigns)
    return Prepared(source, archives, analysis.info, [(a, r, n) for (a, r), n in run_no.items()], cells,
                    cell_results, tests, test_results)


def insert_entry(db, prepared):
    info = prepared.info
    archives = prepared.archives
    created = min((a["created"] for a in archives if a["created"]), default=now())
    entry = db.insert("INSERT INTO entries (added, source, analysed_by, p_thres, v_thres, hold_ratio, adjust, "
                      "assessment, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                      (now(), prepared.source, info.get("version"), info.get("p_thres"), info.get("v_thres"),
                       info.get("hold_ratio"), info.get("adjust"), info.get("assessment"), created))
    archive_ids = {}
    for a in archives:
        archive_ids[a["name"]] = db.insert(
            f"INSERT INTO archives (entry_id, {', '.join(ARCHIVE_COLUMNS)}) "
            f"VALUES (?, {', '.join('?' * len(ARCHIVE_COLUMNS))})", [entry] + [a[c] for c in ARCHIVE_COLUMNS])
        db.executemany("INSERT INTO launches (launch, archive_id, run_id, attempt) VALUES (?, ?, ?, ?)",
                       [(digest, archive_ids[a["name"]], run_id, attempt) for run_id, attempt, digest in a["launches"]])
    db.executemany("INSERT INTO runs (entry_id, run_no, archive_id, run_id) VALUES (?, ?, ?, ?)",
                   [(entry, n, archive_ids[a], r) for a, r, n in prepared.runs])
    cell_ids = ids_of(db, "cells", CELL_COLUMNS, prepared.cells)
    db.executemany("INSERT INTO cell_results (cell_id, entry_id, runs, median_us, p50_us, p90_us, p99_us, run_nos, "
                   "run_medians_us, level, spread) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [(cell_ids[r[0]], entry) + tuple(r[1:]) for r in prepared.cell_results])
    levels = [(cell_ids[r[0]], r[8], r[9], r[1]) for r in prepared.cell_results if r[8] is not None]
    if levels:
        summaries.insert_levels(db, entry, *zip(*levels))
    ids = ids_of(db, "tests", TEST_COLUMNS, prepared.tests)
    db.executemany("INSERT INTO test_results (test_id, entry_id, runs_a, runs_b, median_a_us, median_b_us, ratio, "
                   "ratio_ci_low, ratio_ci_high, p_value, p_adjusted, decision, violated, extra) "
                   "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                   [(ids[r[0]], entry) + tuple(r[1:]) for r in prepared.test_results])
    summaries.insert_verdicts(db, summaries.verdict_rows(entry, prepared.tests, prepared.test_results))
    return entry


def ids_of(db, table, columns, rows):
    """{key: id} for ROWS ({key: row of COLUMNS}) of TABLE (cells or
    tests), inserting the keys it does not have yet."""
    have = dict(db.query(f"SELECT key, id FROM {table}"))
    new = [row for key, row in rows.items() if key not in have]
    if new:
        db.executemany(f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})", new)
        have = dict(db.query(f"SELECT key, id FROM {table}"))
    return have


def none_if_nan(value):
    return None if value is None or value != value else value


def column(table, name):
    """TABLE's column NAME as a list (None when it has none)."""
    return table[name].tolist() if name in table.columns else None


def cell_rows(analysis, run_no, campaigns):
    cells = records(analysis.cells)
    params = analysis.params
    key_of = {}
    rows = {}
    for c in cells:
        p = keys.params_of(c, params, campaign_of(c, campaigns))
        key = key_of[c["cell"]] = keys.cell_key(p)
        if key in rows:
            raise NbhError(f"{analysis.directory / 'cells.csv'}: two cells are one series of the history ({key}): "
                           "an analysis of two releases of one library; add each release's archives on their own")
        rows[key] = (key, p.get("campaign", ""), p.get("library", ""), p.get("distribution", ""),
                     c.get("param_set", ""), c.get("deployment", ""), c.get("op", ""), keys.as_json(p))
    rm = analysis.run_medians
    run_of_row = np.array([run_no[k] for k in zip(rm["archive"].tolist(), rm["run_id"].tolist())], dtype=np.int64)
    # By cell, and within a cell by run (lexsort is stable: as the stable argsort of each cell's runs was).
    order = np.lexsort((run_of_row, rm["cell"].astype(int).to_numpy()))
    cell_of_row = rm["cell"].to_numpy()[order]
    runs = run_of_row[order]
    medians = pd.to_numeric(rm["median_us"], errors="coerce").to_numpy()[order]
    bounds = np.flatnonzero(np.r_[True, cell_of_row[1:] != cell_of_row[:-1], True])
    per_cell = {cell_of_row[start]: (start, end) for start, end in zip(bounds[:-1].tolist(), bounds[1:].tolist())}
    table = analysis.cells
    values = {name: numbers(column(table, name)) for name in ("median_us", "p50_us", "p90_us", "p99_us")}
    kept = [i for i, c in enumerate(cells) if c["cell"] in per_cell and values["median_us"][i] is not None]
    spans = [per_cell[cells[i]["cell"]] for i in kept]
    levels = levels_and_spreads([medians[a:b] for a, b in spans])
    ranges = {}     # run numbers -> run_ranges (most cells have every run)
    out = []
    for i, (a, b), (level, spread) in zip(kept, spans, levels):
        nos = runs[a:b].tolist()
        text = ranges.get(tuple(nos))
        if text is None:
            text = ranges[tuple(nos)] = run_ranges(nos)
        out.append((key_of[cells[i]["cell"]], len(nos), values["median_us"][i],
                    *(values[name][i] if values[name] is not None else None for name in ("p50_us", "p90_us", "p99_us")),
                    text, packed(medians[a:b]), none_if_nan(level), none_if_nan(spread)))
    return rows, out


def test_rows(analysis, campaigns):
    tests = records(analysis.tests)
    params = [p for p in analysis.params if p in analysis.tests.columns]
    extra_columns = [c for c in analysis.tests.columns if c not in NOT_EXTRA and c not in params]
    key_of = []
    rows = {}
    for t in tests:
        p = keys.params_of(t, params, campaign_of(t, campaigns))
        key = keys.test_key(t, p)
        key_of.append(key)
        rows[key] = (key, t.get("tag", ""), t["guideline"], t.get("relation", ""), p.get("campaign", ""),
                     p.get("library", ""), p.get("distribution", ""), t.get("param_set", ""),
                     t.get("deployment", ""), keys.as_json(p), t.get("a_params", ""), t.get("b_params", ""))
    if len(rows) < len(tests):
        raise NbhError(f"{analysis.directory / 'tests.csv'}: two tests with the same guideline and parameters: "
                       "damaged analysis")
    table = analysis.tests
    missing = [None] * len(tests)
    values = [numbers(column(table, name)) or missing for name in TEST_VALUES[2:9]]
    counts = [[integer(text) for text in column(table, name) or missing] for name in ("runs_a", "runs_b")]
    decisions = column(table, "decision")
    violated = [{"TRUE": 1, "FALSE": 0}.get(str(v).upper()) for v in column(table, "violated") or missing]
    out = []
    for i, (t, key) in enumerate(zip(tests, key_of)):
        out.append((key, counts[0][i], counts[1][i], *(v[i] for v in values), decisions[i], violated[i],
                    keys.as_json({c: t[c] for c in extra_columns if t.get(c, "") != ""})))
    return rows, out
