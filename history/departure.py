"""Online change detection (CI; docs/history.md#online-does-this-entry-depart):
does the entry just added depart from the recent history of each of its
cells? A prediction test with two levels of repetition.

What repeats: runs (launches) within an entry, and entries within the
history. A cell's entry i has a level x_i, the median of the logarithms
of its run medians, and a run spread w_i, the variance of those
logarithms (robustly: (IQR / 1.349)^2). The model: x_i = mu + e_i + m_i,
the entry's own shift e_i (sd sigma_e: what moves a whole campaign, the
machine's load, the build) and the median of its runs' noise m_i
(variance about (pi/2) w_i / r_i for r_i runs).

The baseline: the cell's last entries before the new one (at most
WINDOW), from the last offline change point before it on (segments.py:
the levels already known to differ are not mixed into it). With k of
them, their mean xbar and variance s^2 (k - 1 degrees of freedom)
estimate mu and sigma_e^2 + the runs' share. The new entry y with its own
r runs and run spread w:

    V = s2e + (pi/2) w / r + s~^2 / k,   s2e = max(0, s~^2 - mean_i (pi/2) w_i / r_i)
    T = (y - xbar) / sqrt(V)

so the new archive's own runs say how sure its level is, and the
history's entry-to-entry variance is the level above. s~^2 is s^2
moderated across the cells tested together (empirical Bayes, Smyth 2004:
a prior of d0 degrees of freedom and variance s0^2 fitted to the cells'
s^2), which gives short histories the degrees of freedom of many cells;
T is referred to Student's t with k - 1 + d0 degrees of freedom. The size
is exp(y - xbar) with its interval exp(y - xbar +- t_0.975 sqrt(V)).

Decided: a cell departs where its p passes Benjamini-Hochberg at alpha
across the cells tested together (the false discovery rate of an
entry's alerts, whatever the number of cells) and its size is at least
min_ratio either way. A cell with fewer than MIN_EARLIER baseline entries
is not tested ("too few entries")."""
import math
from dataclasses import dataclass

import numpy as np

from history.distributions import digamma, t_quantile, t_two_sided, trigamma, trigamma_inverse

MIN_EARLIER = 5
WINDOW = 20
MEDIAN_EFFICIENCY = math.pi / 2     # the variance of a median of r normal values, over that of their mean


@dataclass
class Baseline:
    levels: np.ndarray      # the baseline entries' levels (log us), oldest first
    spreads: np.ndarray     # their run spreads (variance of log run medians)
    runs: np.ndarray        # their runs


@dataclass
class Departure:
    status: str             # "departs", "consistent", "too few entries"
    earlier: int            # baseline entries
    ratio: float = math.nan             # exp(y - xbar): the new entry's level over the baseline's
    ratio_low: float = math.nan
    ratio_high: float = math.nan
    baseline_us: float = math.nan       # exp(xbar)
    entry_us: float = math.nan          # exp(y)
    t: float = math.nan
    df: float = math.nan
    p: float = math.nan
    p_adjusted: float = math.nan


def level_and_spread(run_medians):
    """(level, run spread) of one entry's run medians (us): the median of
    their logarithms and the robust variance of the logarithms."""
    logs = np.log(np.asarray(run_medians, dtype=float))
    logs = logs[np.isfinite(logs)]
    if not len(logs):
        return math.nan, math.nan
    q1, q3 = np.percentile(logs, [25, 75])
    return float(np.median(logs)), float(((q3 - q1) / 1.349) ** 2)


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
    z = np.log(s2)
    e = z - digamma(d / 2) + np.log(d / 2)
    mean_e = float(e.mean())
    excess = float(((e - mean_e) ** 2).sum() / (len(e) - 1) - trigamma(d / 2).mean())
    if excess <= 0:
        return math.inf, math.exp(mean_e)
    d0 = 2 * trigamma_inverse(excess)
    return d0, math.exp(mean_e + float(digamma(d0 / 2)) - math.log(d0 / 2))


MIN_PRIOR_CELLS = 5


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


def test_entries(baselines, levels, spreads, runs, alpha, min_ratio, min_earlier=MIN_EARLIER):
    """The departures of one entry's cells, tested together. BASELINES:
    one Baseline per cell; LEVELS, SPREADS, RUNS: the new entry's level,
    run spread and runs per cell. Returns one Departure per cell."""
    levels = np.asarray(levels, dtype=float)
    spreads = np.nan_to_num(np.asarray(spreads, dtype=float))
    runs = np.maximum(np.asarray(runs, dtype=float), 1)
    k = np.array([len(b.levels) for b in baselines], dtype=float)
    tested = (k >= max(2, min_earlier)) & np.isfinite(levels)
    s2 = np.array([np.var(b.levels, ddof=1) if len(b.levels) >= 2 else math.nan for b in baselines])
    xbar = np.array([np.mean(b.levels) if len(b.levels) else math.nan for b in baselines])
    runs_share = np.array([np.mean(MEDIAN_EFFICIENCY * np.nan_to_num(b.spreads) / np.maximum(b.runs, 1))
                           if len(b.levels) else math.nan for b in baselines])
    d = k - 1
    d0, s0 = variance_prior(s2[tested], d[tested])
    if d0 == math.inf:
        moderated, df = np.full(len(k), s0), np.full(len(k), 1e6)
    elif d0 > 0:
        moderated, df = (d0 * s0 + d * s2) / (d0 + d), d + d0
    else:
        moderated, df = s2, d
    p = np.full(len(k), np.nan)
    t = np.full(len(k), np.nan)
    half = np.full(len(k), np.nan)
    diff = levels - xbar
    if tested.any():
        v = (np.maximum(0.0, moderated - runs_share) + MEDIAN_EFFICIENCY * spreads / runs + moderated / k)[tested]
        with np.errstate(divide="ignore", invalid="ignore"):
            t[tested] = np.where(v > 0, diff[tested] / np.sqrt(v), np.where(diff[tested] != 0,
                                                                            np.sign(diff[tested]) * np.inf, 0.0))
        p[tested] = np.where(np.isfinite(t[tested]), t_two_sided(np.nan_to_num(t[tested], posinf=0, neginf=0),
                                                                 df[tested]), 0.0)
        half[tested] = t_quantile(np.full(int(tested.sum()), 0.975), df[tested]) * np.sqrt(v)
    adjusted = benjamini_hochberg(p)
    out = []
    for i in range(len(k)):
        if not tested[i]:
            out.append(Departure("too few entries", int(k[i])))
            continue
        ratio = math.exp(diff[i])
        departs = adjusted[i] <= alpha and max(ratio, 1 / ratio) >= min_ratio
        out.append(Departure("departs" if departs else "consistent", int(k[i]), ratio, math.exp(diff[i] - half[i]),
                             math.exp(diff[i] + half[i]), math.exp(xbar[i]), math.exp(levels[i]), float(t[i]),
                             float(df[i]), float(p[i]), float(adjusted[i])))
    return out
