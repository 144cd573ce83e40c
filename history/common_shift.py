"""What moves every cell of an entry together (docs/history.md#what-moves-every-cell):
the entry's common shift, and each cell's sensitivity to it.

On a shared machine a whole campaign runs faster or slower with the load
it met (this project's VM moved whole archives by up to 25 %), and not
every cell alike: small messages moved up to 1.5 times as much as the
common shift, large ones less. Left in, such a phase looks like a change
of every cell it touched; taken out as one shift per entry, it still
leaves steps in the cells that react more or less than the median. So
each cell's level is modelled as

    x_ce = a_c + beta_c g_e + r_ce

with g_e the entry's common shift (the median, over the cells of one
series identity -- campaign, library, distribution -- that the entry
measured, of their levels minus each cell's median level), beta_c the
cell's sensitivity to it (least squares over the cell's entries), and
r_ce what is the cell's own: the residual that change detection looks at
(segments.py offline; departure.py online, where the fit is a prediction
at the new entry's g). The common shifts form a series of their own per
identity (a change of every cell at once, a library slower everywhere or
a machine slower from some day on), searched like a cell's."""
import numpy as np

MIN_COMMON_CELLS = 5        # fewer cells in an entry: no common shift (0)
BETA_RANGE = (0.0, 3.0)     # a sensitivity outside is a fit to noise


def _flat(series):
    """SERIES flattened: (row of each value, entry ids, levels, lengths)."""
    lengths = np.array([len(x) for _, x in series], dtype=np.int64)
    entries = np.concatenate([np.asarray(e, dtype=np.int64) for e, _ in series]) if len(series) else np.zeros(0, int)
    levels = np.concatenate([np.asarray(x, dtype=float) for _, x in series]) if len(series) else np.zeros(0)
    return np.repeat(np.arange(len(series)), lengths), entries, levels, lengths


def level_matrix(series):
    """The levels of SERIES as a (cells, entries) matrix, nan where a cell
    did not measure an entry, and the entry ids of its columns."""
    row, entries, levels, _ = _flat(series)
    ids = np.unique(entries)
    matrix = np.full((len(series), len(ids)), np.nan)
    matrix[row, np.searchsorted(ids, entries)] = levels
    return matrix, ids


def entry_shifts(series):
    """{entry id: common shift} of SERIES, (entry ids, levels) per cell of
    one identity: per entry, the median over its cells of their level
    minus the cell's median level; 0 where fewer than MIN_COMMON_CELLS
    cells measured the entry."""
    series = [(e, x) for e, x in series if len(x)]
    if not series:
        return {}
    matrix, ids = level_matrix(series)
    with np.errstate(all="ignore"):
        deviations = matrix - np.nanmedian(matrix, axis=1, keepdims=True)
        counted = np.sum(np.isfinite(deviations), axis=0)
        shifts = np.where(counted >= MIN_COMMON_CELLS, np.nanmedian(np.where(counted > 0, deviations, 0), axis=0), 0.0)
    return dict(zip(ids.tolist(), np.nan_to_num(shifts).tolist()))


def residual_series(series, shifts):
    """Each cell's levels with its share of the common shifts taken out
    (x - beta g), its beta, and its slope weight: the variance of that
    beta per unit of the cell's own variance (0 where beta is not fitted).

    beta is the least-squares slope of the cell's levels on its entries'
    shifts, shrunk toward 1 by how much the slopes of the cells of SERIES
    (one identity) differ beyond their own sampling error (empirical
    Bayes, the method of moments: tau^2 = mean (b - 1)^2 - mean se^2, each
    slope b kept 1 + w (b - 1), w = tau^2 / (tau^2 + se^2)). A history of
    a few entries cannot tell a cell's slope from noise: fitted alone it
    absorbs part of the cell's own variation, and a prediction from it
    misses more often than its variance says (200 simulated clean
    histories of 24 cells, 5 entries before the newest: a departing cell
    in 61 entries, where the false discovery rate allows about 10). The
    slope weight w / S_gg carries what is left of that error into the
    online test's prediction variance (departure.fits)."""
    if not series:
        return []
    row, entries, flat_x, lengths = _flat(series)
    top = int(max(entries.max(initial=0), max(shifts, default=0))) + 1
    lookup = np.zeros(top)
    if shifts:
        lookup[np.fromiter(shifts, dtype=np.int64, count=len(shifts))] = np.fromiter(shifts.values(), dtype=float,
                                                                                     count=len(shifts))
    flat_g = lookup[entries]
    cells = len(series)
    counts = np.maximum(lengths, 1)
    mean_g = np.bincount(row, flat_g, cells) / counts
    mean_x = np.bincount(row, flat_x, cells) / counts
    dg, dx = flat_g - mean_g[row], flat_x - mean_x[row]
    spread = np.bincount(row, dg * dg, cells)
    cross = np.bincount(row, dg * dx, cells)
    total = np.bincount(row, dx * dx, cells)
    fitted = (lengths >= 3) & (spread > 1e-12)
    with np.errstate(all="ignore"):
        slope = np.where(fitted, cross / spread, 1.0)
        own = np.maximum(total - slope * cross, 0.0) / np.maximum(lengths - 2, 1)
        error = np.where(fitted, own / spread, 0.0)          # se^2 of each slope
    weight = np.where(fitted, 1.0, 0.0)
    if fitted.sum() >= MIN_COMMON_CELLS:
        between = max(0.0, float(np.mean((slope[fitted] - 1) ** 2) - np.mean(error[fitted])))
        with np.errstate(all="ignore"):
            weight = np.where(fitted, np.where(between + error > 0, between / (between + error), 1.0), 0.0)
    beta = np.clip(1 + weight * (slope - 1), *BETA_RANGE)
    with np.errstate(all="ignore"):
        slope_weight = np.where(fitted, weight / spread, 0.0)
    residual = flat_x - beta[row] * flat_g
    bounds = np.r_[0, np.cumsum(lengths)]
    return [(residual[bounds[i]:bounds[i + 1]], float(beta[i]), float(slope_weight[i])) for i in range(cells)]
