"""The migrations of older histories that SQL alone cannot do (schema.py
lists every step; database.migrate runs them in one transaction).

version_1_to_2: a series' identity gains the campaign and the library's
distribution (keys.py). Every cell and test of a version 1 history is
keyed again from the archives of each entry that measured it (a version 1
cell that two campaigns shared becomes two cells), and every cell result
gets its level and run spread from its run medians; the per-entry
summaries (summaries.py) are filled."""
import json

from history import keys, summaries
from history.departure import level_and_spread

# Version 1 filed a release install-mpi installed under its package and
# kept every other name as it was.


def _family_v1(name):
    match = keys.VERSIONED.match(name or "")
    return match.group(1) if match else (name or "")


def _identities(db):
    """{(entry id, version 1 family): (campaign, library, distribution)}."""
    found = {}
    for entry, campaign, library in db.query("SELECT entry_id, campaign, library FROM archives ORDER BY id"):
        found.setdefault((entry, _family_v1(library)), []).append((campaign or "", library or ""))
    out = {}
    for key, archives in found.items():
        campaigns = "+".join(sorted({c for c, _ in archives if c}))
        library = sorted(archives, key=lambda a: a[1])[0][1]
        out[key] = (campaigns, keys.library_family(library), keys.distribution(library))
    return out


def _rekey(db, table, results, identities, key_of):
    """Points every result of TABLE (cells or tests) at the row of its new key."""
    rows = {r[0]: r for r in db.query(f"SELECT * FROM {table}")}
    columns = [d[0] for d in db.execute(f"SELECT * FROM {table} LIMIT 0").description]
    new_ids = {}
    moves = []
    for row_id, entry in db.query(f"SELECT {results[1]}, entry_id FROM {results[0]}"):
        row = dict(zip(columns, rows[row_id]))
        params = json.loads(row["params"])
        campaign, library, distribution = identities.get((entry, params.get("library", "")),
                                                         ("", params.get("library", ""), "system"))
        identity = {k: v for k, v in (("campaign", campaign), ("library", library), ("distribution", distribution))
                    if v}
        params = {**identity, **{k: v for k, v in params.items() if k not in keys.IDENTITY}}
        key = key_of(row, params)
        if key not in new_ids:
            values = {**row, "key": key, "params": keys.as_json(params), "campaign": campaign, "library": library,
                      "distribution": distribution}
            names = [c for c in columns if c != "id"]
            new_ids[key] = db.insert(f"INSERT INTO {table} ({', '.join(names)}) VALUES "
                                     f"({', '.join('?' * len(names))})", [values[c] for c in names])
        moves.append((new_ids[key], row_id, entry))
    db.executemany(f"UPDATE {results[0]} SET {results[1]} = ? WHERE {results[1]} = ? AND entry_id = ?", moves)
    old = sorted(rows)
    for start in range(0, len(old), 900):
        part = old[start:start + 900]
        db.execute(f"DELETE FROM {table} WHERE id IN ({','.join('?' * len(part))})", part)


def _cell_key(row, params):
    return keys.cell_key(params)


def _test_key(row, params):
    parts = row["key"].split("|")
    return "|".join(["|".join(parts[:-4]), parts[-4], keys.params_text(params), parts[-2], parts[-1]])


def none_if_nan(value):
    return None if value is None or value != value else value


def version_1_to_2(db):
    identities = _identities(db)
    _rekey(db, "cells", ("cell_results", "cell_id"), identities, _cell_key)
    _rekey(db, "tests", ("test_results", "test_id"), identities, _test_key)
    levels = []
    for cell, entry, medians in db.query("SELECT cell_id, entry_id, run_medians_us FROM cell_results"):
        values = [v for v in json.loads(medians) if v is not None]
        level, spread = level_and_spread(values) if values else (None, None)
        levels.append((none_if_nan(level), none_if_nan(spread), cell, entry))
    db.executemany("UPDATE cell_results SET level = ?, spread = ? WHERE cell_id = ? AND entry_id = ?", levels)
    summaries.fill(db)
