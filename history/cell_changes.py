"""The change points of every selected cell's series (changes.py), as the
rows `history changes`, the report's History section and the page show:
the cell, where the new level begins (entry, archive, date, release), its
size and its statistics."""
from history import series
from history.changes import ALPHA, MIN_RATIO, PERMUTATIONS, change_points

COLUMNS = ("library", "param_set", "deployment", "op", "cell", "begins_entry", "begins_archive", "begins_date",
           "begins_release", "previous_release", "before_us", "after_us", "ratio", "direction", "q", "p",
           "entries_before", "entries_after", "run_spread")


CONTEXT = ("library", "param_set", "deployment", "nprocs", "op")


def cell_text(params, same=()):
    """The cell's parameters but its context, its op and those of SAME
    (the parameters every cell of the history has alike): 'topology=cart,msize=1024'."""
    return ",".join(f"{k}={v}" for k, v in params.items() if k not in CONTEXT and k not in same)


def same_everywhere(cells):
    """The parameters with one value in every cell of CELLS ({id: (key, params)})."""
    values = {}
    for _, params in cells.values():
        for k, v in params.items():
            values.setdefault(k, set()).add(v)
    count = len(cells)
    return {k for k, v in values.items() if len(v) == 1 and sum(k in p for _, p in cells.values()) == count}


def series_of(results, order):
    """The entries of ORDER that measured the cell, and their run medians."""
    chosen = [e for e in order if e.id in results]
    return chosen, [results[e.id]["run_medians"] or [results[e.id]["median_us"]] for e in chosen]


def find_changes(db, by="date", where=None, alpha=ALPHA, min_ratio=MIN_RATIO, permutations=PERMUTATIONS,
                 cell_ids=None, same=None):
    """One dict per change point (COLUMNS) of the cells matching WHERE
    (and CELL_IDS, when given), ordered by cell and position; `cell` names
    each without the parameters of SAME (default: those every cell of the
    history shares; () for every parameter)."""
    entries = series.read_entries(db)
    cells = series.read_cells(db, where, cell_ids)
    results = series.cell_results(db, list(cells)) if cells else {}
    if same is None:
        same = same_everywhere(cells if not where and cell_ids is None else series.read_cells(db))
    rows = []
    orders = {}
    for cell_id in sorted(cells, key=lambda c: cells[c][0]):
        key, params = cells[cell_id]
        library = params.get("library", "")
        if library not in orders:
            orders[library] = series.ordered(entries, by, library)
        chosen, samples = series_of(results.get(cell_id, {}), orders[library])
        for c in change_points(samples, key, alpha, min_ratio, permutations):
            entry = chosen[c.index]
            archive = entry.archive_of(library)
            rows.append({"library": library, "param_set": params.get("param_set", ""),
                         "deployment": params.get("deployment", ""), "op": params.get("op", ""),
                         "cell": cell_text(params, same), "cell_id": cell_id, "key": key,
                         "begins_entry": entry.id, "begins_archive": archive["name"],
                         "begins_date": entry.created, "begins_release": archive["release"],
                         "previous_release": chosen[c.index - 1].release(library),
                         "before_us": c.before, "after_us": c.after, "ratio": c.ratio,
                         "direction": "slower" if c.ratio > 1 else "faster", "q": c.q, "p": c.p,
                         "entries_before": c.entries_before, "entries_after": c.entries_after,
                         "run_spread": c.run_spread})
    return rows


def change_line(row):
    """One line: 'openmpi default 1x4 neighbor_alltoall topology=...,msize=1024: 1.42x slower from
    ARCHIVE (openmpi 5.0.8, 2026-11-26), after 4 entries at 12.1 us, p = 0.012'."""
    context = " ".join(x for x in (row["library"], row["param_set"], row["deployment"], row["op"]) if x)
    size = row["ratio"] if row["ratio"] >= 1 else 1 / row["ratio"]
    return (f"{context} {row['cell']}: {size:.2f}x {row['direction']} from {row['begins_archive']} "
            f"({row['begins_release']}, {row['begins_date'][:10]}): "
            f"{row['before_us']:.4g} -> {row['after_us']:.4g} us, "
            f"{row['entries_before']} entries before, {row['entries_after']} from it, q = {row['q']:.3g}, "
            f"p = {row['p']:.3g}, run spread {float(row['run_spread']):.3g}x")
