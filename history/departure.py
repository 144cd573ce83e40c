"""Online change detection (CI; docs/history.md#online-does-the-new-entry-depart):
does the entry just added depart from the recent history of its cells?
A prediction test with the entries as a level of their own.

What repeats: runs (launches) within an entry, entries within the
history. A cell's entry has a level, the mean of the middle 60 % of the
logarithms of its run medians (level_and_spread: one wild run does not
move it), and a run spread w, the robust variance of those logarithms.
What may vary between entries: anything fixed for one campaign (the
machine's load while it ran, the build). Part of that is common to every
cell of an entry (the machine was slower) and part is the cell's own.

The baseline of a cell: its last entries before the new one (at most
WINDOW), from its last offline change point before the new one on
(segments.py: levels already known to differ are not mixed in). With k
baseline entries:

1. The entries' common shifts (common_shift.py): each baseline entry's
   g_e, the median over the tested cells it measured of their level minus
   the cell's baseline median, and the new entry's g, the median of their
   new level minus that median. Each level is taken less beta times its
   entry's shift, beta the cell's sensitivity to the common shift, fitted
   on the cell's whole history before the new entry and shrunk toward 1
   across the cells (common_shift.residual_series: a baseline of a few
   entries cannot afford a slope of its own). The new g is itself tested
   against the baseline entries' g_e (prediction t, K - 1 degrees of
   freedom, at alpha): "every cell of this entry moved", which is shown
   but is no departure: a library that is slower everywhere cannot be
   told from a machine that was slower while the campaign ran (this
   project's VM moved whole archives by up to 25 %). (With fewer than
   MIN_COMMON_CELLS cells there is no common shift.)

2. Each cell: y its new level; the prediction is the mean of its k
   baseline levels less beta g_e, plus beta g; s^2 their variance (k - 1
   degrees of freedom, less what the slope took: fits). The prediction
   variance is s~^2 (1 + 1/k + v (g - mean g_e)^2), v the slope's variance
   per unit of the cell's own (0 where it is shrunk to 1): the
   entry-to-entry variance, which holds both levels of repetition (the
   entries' own shifts and the noise of a level made of r runs). Where the
   new archive's level is less sure than the baseline's were, V grows by
   the excess, 1.06 (w~ / r - mean_i w_i / r_i) (1.06: a 20 %-trimmed
   mean's variance over the mean's), w~ the new archive's run spread
   pooled with the baseline's, (k mean_i w_i + w) / (k + 1): under the
   null its runs scatter as the baseline's did, and one entry's robust
   variance of r run medians is too noisy to stand alone (its excess,
   kept where positive, made the test too cautious: on the quiet real
   history the clean cell tests' t had sd 0.91, 0.98 pooled; 476 of 570
   1.2x steps found, 521 pooled). A new spread over DISTURBED (3) times
   the baseline's mean stands alone: those runs were disturbed (the
   loaded real history's sixth entry: 4 clean cells departed with its
   spreads pooled, none with them standing alone), which one entry of 30
   normal runs shows by chance in 0.4 % of cells, of 10 runs in 4 %. So
   the new archive's runs are its replicates (fewer runs, a less sure
   level), and the history's entry-to-entry variance the level above.
   s~^2 is s^2 moderated across the cells tested together (empirical
   Bayes, Smyth 2004: a scaled inverse
   chi-square prior, d0 degrees of freedom and variance s0^2, fitted to
   the cells' s^2), which lends a short history the degrees of freedom of
   many cells; T = (y - prediction) / sqrt(V) against Student's t with
   the rest's degrees of freedom plus d0. The size is exp(y - prediction),
   its 95 % interval exp(y - prediction +- t_0.975 sqrt(V)).

Decided: the cells by Benjamini-Hochberg at alpha among them (the false
discovery rate of one entry's alerts, whatever its number of cells); a
cell departs where its adjusted p is at most alpha and its size at least
min_ratio either way (the common shift: "shifted", on the same terms).
A cell with fewer than MIN_EARLIER baseline entries is not tested:
"too few entries"."""
import math
from dataclasses import dataclass

import numpy as np

from history import common_shift
from history.distributions import digamma, t_quantile, t_two_sided, trigamma, trigamma_inverse

MIN_EARLIER = 5
WINDOW = 20
TRIM = 0.2
# The variance of a 20 %-trimmed mean of r normal values over that of their mean (1/0.94).
TRIMMED_EFFICIENCY = 1.06
MIN_COMMON_CELLS = common_shift.MIN_COMMON_CELLS
MIN_PRIOR_CELLS = 5
DISTURBED = 3               # a new run spread over this many times its baseline's mean stands alone


@dataclass
class Baseline:
    entries: list           # the baseline entries' ids, oldest first
    levels: np.ndarray      # their levels (log us)
    spreads: np.ndarray     # their run spreads (variance of the log run medians)
    runs: np.ndarray        # their runs
    beta: float = 1.0       # the cell's sensitivity to the entries' common shift (common_shift.py), from its history
    slope_weight: float = 0.0   # the variance of beta per unit of the cell's own variance (0: beta not fitted)


@dataclass
class Departure:
    status: str             # "departs", "consistent", "too few entries" (the common shift: "shifted")
    earlier: int            # baseline entries
    ratio: float = math.nan             # the new level over the predicted
    ratio_low: float = math.nan
    ratio_high: float = math.nan
    baseline_us: float = math.nan       # exp(prediction): the level the baseline expects at the new shift
    entry_us: float = math.nan          # exp(y)
    t: float = math.nan
    df: float = math.nan
    p: float = math.nan
    p_adjusted: float = math.nan


def level_and_spread(run_medians):
    """(level, run spread) of one entry's run medians (us): the mean of
    the middle 60 % of their logarithms (TRIM of them left out at each
    end: robust to a wild run, nearly as precise as the mean) and the
    robust variance of the logarithms ((IQR / 1.349)^2)."""
    logs = np.sort(np.log(np.asarray(run_medians, dtype=float)))
    logs = logs[np.isfinite(logs)]
    if not len(logs):
        return math.nan, math.nan
    cut = int(TRIM * len(logs))
    q1, q3 = np.percentile(logs, [25, 75])
    return float(logs[cut:len(logs) - cut].mean()), float(((q3 - q1) / 1.349) ** 2)


def sorted_quantile(x, q):
    """The Q quantile of X, sorted: a list (one sample) or an array of
    sorted rows (one sample each: a quantile per row); as np.percentile of
    one sample computes it, to the last bit (linear between order
    statistics; np.percentile along an axis differs in the last bit)."""
    rows = isinstance(x, np.ndarray)
    n = x.shape[1] if rows else len(x)
    h = (n - 1) * q
    i = math.floor(h)
    t = h - i
    j = min(i + 1, n - 1)
    a, b = (x[:, i], x[:, j]) if rows else (x[i], x[j])
    return a + (b - a) * t if t < 0.5 else b - (b - a) * (1 - t)


def levels_and_spreads(run_medians):
    """level_and_spread of each array of RUN_MEDIANS (a list), computed for
    all arrays of one length at once (the same numbers: a history entry's
    50 400 cells are one call, not 50 400)."""
    out = [(math.nan, math.nan)] * len(run_medians)
    logs = []
    for values in run_medians:
        x = np.asarray(values, dtype=float)
        logs.append(np.log(x[np.isfinite(x) & (x > 0)]))
    by_length = {}
    for i, x in enumerate(logs):
        by_length.setdefault(len(x), []).append(i)
    for n, members in by_length.items():
        if not n:
            continue
        block = np.sort(np.array([logs[i] for i in members]), axis=1)
        cut = int(TRIM * n)
        levels = block[:, cut:n - cut].mean(axis=1)
        q1, q3 = (sorted_quantile(block, q) for q in (0.25, 0.75))
        widths = ((q3 - q1) / 1.349).tolist()
        for i, level, width in zip(members, levels.tolist(), widths):
            out[i] = (level, width ** 2)    # pow, as level_and_spread's scalar (an array's ** 2 multiplies)
    return out


def variance_prior(variances, dfs):
    """(d0, s0^2) of the scaled inverse chi-square prior fitted to the
    sample variances VARIANCES with DFS degrees of freedom (limma's
    fitFDist, Smyth 2004); d0 = 0 where it cannot be fitted (fewer than
    MIN_PRIOR_CELLS usable variances), inf where the variances are as alike
    as their degrees of freedom allow."""
    s2 = np.asarray(variances, dtype=float)
    d = np.asarray(dfs, dtype=float)
    ok = (d > 0) & np.isfinite(s2) & (s2 > 0)
    if ok.sum() < MIN_PRIOR_CELLS:
        return 0.0, math.nan
    s2, d = s2[ok], d[ok]
    e = np.log(s2) - digamma(d / 2) + np.log(d / 2)
    mean_e = float(e.mean())
    excess = float(((e - mean_e) ** 2).sum() / (len(e) - 1) - trigamma(d / 2).mean())
    if excess <= 0:
        return math.inf, math.exp(mean_e)
    d0 = 2 * trigamma_inverse(excess)
    return d0, math.exp(mean_e + float(digamma(d0 / 2)) - math.log(d0 / 2))


def benjamini_hochberg(p):
    """BH-adjusted p values (nan stays nan)."""
    p = np.asarray(p, dtype=float)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    if not len(ok):
        return out
    m = len(ok)
    order = ok[np.argsort(p[ok], kind="stable")]
    scaled = p[order] * m / np.arange(1, m + 1)
    out[order] = np.minimum(1.0, np.minimum.accumulate(scaled[::-1])[::-1])
    return out


def new_shift(baselines, levels, tested):
    """({baseline entry: its common shift}, the new entry's): the new
    entry's is the median over the TESTED cells of their new level minus
    their baseline median, as common_shift.entry_shifts makes the others;
    ({}, 0) with fewer than MIN_COMMON_CELLS tested cells."""
    if tested.sum() < MIN_COMMON_CELLS:
        return {}, 0.0
    chosen = [(b.entries, b.levels) for b, ok in zip(baselines, tested) if ok]
    shifts = common_shift.entry_shifts(chosen)
    new = [y - float(np.median(b.levels)) for b, y, ok in zip(baselines, levels, tested) if ok]
    return shifts, float(np.median(new))


def fits(baselines, shifts, g_new):
    """Each cell's prediction from its BASELINES (cells of one baseline
    length at once): its levels less beta times their entries' common
    shifts (SHIFTS: {entry: g}; beta fitted on the cell's whole history
    before the new entry and shrunk across its cells,
    common_shift.residual_series: a baseline of a few entries cannot
    afford a slope of its own). Arrays, one value per cell: the prediction
    at G_NEW, the variance of the rest, its degrees of freedom, the
    prediction's variance factor, and the mean of the baseline's run
    variances of a level (1.06 w / r). What the slope took from the
    baseline is counted as in a regression: the rest's degrees of freedom
    are k - 1 less the slope's leverage on the baseline, the slope weight
    times the baseline's sum of squared shifts about their mean (1 where
    the slope was fitted on these entries alone), and the factor is
    1 + 1/k + weight (G_NEW - mean g)^2: the slope's own error at the new
    shift (a regression's prediction interval, where the slope is fitted
    on the baseline alone). A cell without a baseline: nan (0 degrees of
    freedom); with one entry: no variance."""
    count = len(baselines)
    predicted, variance, factor, runs_variance = (np.full(count, np.nan) for _ in range(4))
    df = np.zeros(count)
    by_length = {}
    for i, b in enumerate(baselines):
        by_length.setdefault(len(b.levels), []).append(i)
    for k, members in by_length.items():
        if not k:
            continue
        chosen = [baselines[i] for i in members]
        x = np.array([b.levels for b in chosen], dtype=float)
        g = np.array([[shifts.get(e, 0.0) for e in b.entries] for b in chosen], dtype=float)
        beta = np.array([b.beta for b in chosen], dtype=float)
        weight = np.array([b.slope_weight for b in chosen], dtype=float)
        rest = x - beta[:, None] * g
        mean_rest, mean_g = rest.mean(axis=1), g.mean(axis=1)
        predicted[members] = mean_rest + beta * g_new
        factor[members] = 1 + 1 / k + weight * (g_new - mean_g) ** 2
        if k > 1:
            lost = np.minimum(1.0 + weight * ((g - mean_g[:, None]) ** 2).sum(axis=1), k - 0.5)
            df[members] = k - lost
            variance[members] = ((rest - mean_rest[:, None]) ** 2).sum(axis=1) / (k - lost)
        spreads = np.nan_to_num(np.array([b.spreads for b in chosen], dtype=float))
        runs = np.maximum(np.array([b.runs for b in chosen], dtype=float), 1)
        runs_variance[members] = (TRIMMED_EFFICIENCY * spreads / runs).mean(axis=1)
    return predicted, variance, df, factor, runs_variance


def pooled_spreads(baselines, spreads):
    """The new entry's run spread per cell (SPREADS) pooled with its
    BASELINES' as k + 1 estimates alike, k the baseline's entries:
    (k mean w_i + w) / (k + 1); w alone where it is over DISTURBED times
    mean w_i (or there is no baseline)."""
    k = np.array([len(b.spreads) for b in baselines], dtype=float)
    total = np.array([float(np.nan_to_num(np.asarray(b.spreads, dtype=float)).sum()) for b in baselines])
    with np.errstate(divide="ignore", invalid="ignore"):
        disturbed = ~(spreads <= DISTURBED * total / k)
    return np.where(disturbed, spreads, (total + spreads) / (k + 1))


def predict(diff, v, df):
    """(t, p, half width of the 95 % interval) of differences DIFF with
    prediction variances V and degrees of freedom DF (arrays)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(v > 0, diff / np.sqrt(np.where(v > 0, v, 1)), np.where(diff != 0, np.sign(diff) * np.inf, 0.0))
    p = np.where(np.isfinite(t), t_two_sided(np.where(np.isfinite(t), t, 0.0), df), 0.0)
    return t, p, t_quantile(np.full(len(diff), 0.975), df) * np.sqrt(v)


def departure(status, earlier, diff, half, xbar, y, t, df, p, adjusted, alpha, min_ratio):
    ratio = math.exp(diff)
    if status is None:
        status = "departs" if adjusted <= alpha and max(ratio, 1 / ratio) >= min_ratio else "consistent"
    return Departure(status, earlier, ratio, math.exp(diff - half), math.exp(diff + half), math.exp(xbar),
                     math.exp(y), float(t), float(df), float(p), float(adjusted))


def entry_departures(baselines, levels, spreads, runs, alpha, min_ratio, min_earlier=MIN_EARLIER):
    """The departures of one entry's cells, tested together. BASELINES:
    one Baseline per cell; LEVELS, SPREADS, RUNS: the new entry's level,
    run spread and runs per cell. Returns (one Departure per cell, the
    common shift's Departure, or None where there is none)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return _entry_departures(baselines, levels, spreads, runs, alpha, min_ratio, min_earlier)


def _entry_departures(baselines, levels, spreads, runs, alpha, min_ratio, min_earlier):
    levels = np.asarray(levels, dtype=float)
    spreads = np.nan_to_num(np.asarray(spreads, dtype=float))
    runs = np.maximum(np.asarray(runs, dtype=float), 1)
    k = np.array([len(b.levels) for b in baselines], dtype=float)
    tested = (k >= max(2, min_earlier)) & np.isfinite(levels)
    shifts, g = new_shift(baselines, levels, tested)
    predicted, s2, d, factor, baseline_runs = fits(baselines, shifts, g)
    d0, s0 = variance_prior(s2[tested], d[tested])
    if d0 == math.inf:
        moderated, df = np.full(len(k), s0), np.full(len(k), 1e6)
    elif d0 > 0:
        moderated, df = (d0 * s0 + d * s2) / (d0 + d), d + d0
    else:
        moderated, df = s2, d
    pooled = pooled_spreads(baselines, spreads)
    v = moderated * factor + np.maximum(0.0, TRIMMED_EFFICIENCY * pooled / runs - baseline_runs)
    t, p, half = (np.full(len(k), np.nan) for _ in range(3))
    if tested.any():
        t[tested], p[tested], half[tested] = predict((levels - predicted)[tested], v[tested], df[tested])
    history = np.array([shifts[e] for e in sorted(shifts)])
    common = None
    if len(history) >= max(2, min_earlier):
        sd = float(np.std(history, ddof=1))
        kg = len(history)
        common = (g - float(history.mean()), sd * sd * (1 + 1 / kg), kg - 1, kg, float(history.mean()))
        ct, cp, chalf = predict(np.array([common[0]]), np.array([common[1]]), np.array([float(common[2])]))
        common += (float(ct[0]), float(cp[0]), float(chalf[0]))
    adjusted = benjamini_hochberg(p)
    out = []
    for i in range(len(k)):
        if not tested[i]:
            out.append(Departure("too few entries", int(k[i])))
            continue
        out.append(departure(None, int(k[i]), levels[i] - predicted[i], half[i], predicted[i], levels[i], t[i], df[i],
                             p[i], adjusted[i], alpha, min_ratio))
    if common is None:
        return out, (Departure("too few entries", len(history)) if len(k) >= MIN_COMMON_CELLS else None)
    diff, _, df_common, kg, mean, ct, cp, chalf = common
    shift = departure(None, kg, diff, chalf, mean, g, ct, df_common, cp, cp, alpha, min_ratio)
    shift.status = "shifted" if shift.status == "departs" else shift.status
    return out, shift
