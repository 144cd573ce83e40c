"""Change points of a cell's series (docs/history.md#change-points):
E-Divisive (Matteson and James 2014; MongoDB's CI, Daly et al. 2020, and
Apache Otava use it) on the entries' levels, with a permutation test, and
a change kept only where it outgrows the run-to-run spread.

Each of the N entries of a series has the cell's run medians; its level
x_i is the median of their logarithms, its run spread s_i half their
interquartile range (log). Splitting the entries into A (before) and B
(from entry t on), the energy distance of the levels

    E = 2 mean|x_a - x_b| - mean|x_a - x_a'| - mean|x_b - x_b'|

(a, a' in A, b, b' in B) is 0 when both sides' levels are alike and grows
with the step between them against the scatter within them;
Q(t) = |A||B|/N * E. The best t is a change point when a permutation test
says so: the entries' order shuffled R times, p = (1 + the shuffles whose
best Q reaches the observed) / (R + 1); the shuffles are drawn from a seed
made of the series' key, so the answer is the same every time. Then each
side is searched again (hierarchically, as E-Divisive does), until no
split is significant.

A change point is reported when p <= alpha and its size, the median of
the entries' levels after it over that before it (up to the next and from
the previous change point), is at least min_ratio (or at most its
inverse) and larger than the run spread of those entries (the median of
their s_i, as a factor): a step that the runs within an entry scatter
over is no change. Under no change (the entries exchangeable) a series
gets a false alert with probability at most about alpha; make bench
measures it on real archives. A permutation test of N entries cannot give
p below 2 / C(N, k) for a change k entries before the end: a change needs
a few entries after it to show (at N = 8, alpha = 0.05: three)."""
import hashlib
from dataclasses import dataclass

import numpy as np

ALPHA = 0.05
PERMUTATIONS = 999
MIN_RATIO = 1.03


@dataclass
class ChangePoint:
    index: int          # the first entry (0-based, in the series' order) of the new level
    ratio: float        # median after / median before
    before: float       # median of the entries' medians before (the unit of the values)
    after: float
    q: float            # the E-Divisive statistic of the split
    p: float            # its permutation p
    entries_before: int
    entries_after: int
    run_spread: float   # the run spread of the entries around it, as a factor (>= 1)


def seed_of(key):
    return int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little")


def level_and_spread(samples):
    """Per entry: the median of its log run medians, and half their
    interquartile range."""
    levels = np.array([np.median(s) for s in samples])
    spreads = np.array([(np.percentile(s, 75) - np.percentile(s, 25)) / 2 for s in samples])
    return levels, spreads


def split_statistics(m):
    """Q(t) for t = 1..N-1 of the entry-distance matrices M (..., N, N):
    array (..., N - 1)."""
    n = m.shape[-1]
    c = np.zeros(m.shape[:-2] + (n + 1, n + 1))
    c[..., 1:, 1:] = np.cumsum(np.cumsum(m, axis=-1), axis=-2)
    t = np.arange(1, n)
    total = c[..., n, n][..., None]
    left = c[..., t, t]                         # sum M[A, A]
    between = c[..., t, n] - left               # sum M[A, B]
    right = total - left - 2 * between          # sum M[B, B]
    a, b = t.astype(float), (n - t).astype(float)
    e = 2 * between / (a * b) - left / (a * a) - right / (b * b)
    return a * b / n * e


def best_split(m, rng, permutations):
    """(t, Q, p) of the entries of M: the best split and its permutation p."""
    q = split_statistics(m)
    t = int(np.argmax(q)) + 1
    observed = q[t - 1]
    n = m.shape[0]
    reached = 0
    done = 0
    while done < permutations:
        batch = min(200, permutations - done)
        order = np.argsort(rng.random((batch, n)), axis=1)
        shuffled = m[order[:, :, None], order[:, None, :]]
        reached += int(np.sum(split_statistics(shuffled).max(axis=1) >= observed * (1 - 1e-12)))
        done += batch
    return t, observed, (1 + reached) / (permutations + 1)


def change_points(samples, key, alpha=ALPHA, min_ratio=MIN_RATIO, permutations=PERMUTATIONS):
    """The change points of a series: SAMPLES, one array of positive run
    medians per entry in the series' order; KEY seeds the permutations.
    A size within the run spread is no change (min_ratio = 1 keeps only
    that rule)."""
    samples = [np.log(np.asarray(s, dtype=float)) for s in samples]
    samples = [s[np.isfinite(s)] for s in samples]
    if len(samples) < 3 or any(len(s) == 0 for s in samples):
        return []
    levels, spreads = level_and_spread(samples)
    m = np.abs(levels[:, None] - levels[None, :])
    rng = np.random.default_rng(seed_of(key))
    found = []
    segments = [(0, len(samples))]
    while segments:
        start, end = segments.pop()
        if end - start < 3:
            continue
        t, q, p = best_split(m[start:end, start:end], rng, permutations)
        if p > alpha:
            continue
        found.append((start + t, q, p))
        segments += [(start, start + t), (start + t, end)]
    found.sort()
    bounds = [0] + [f[0] for f in found] + [len(samples)]
    out = []
    for k, (index, q, p) in enumerate(found):
        before = float(np.exp(np.median(levels[bounds[k]:index])))
        after = float(np.exp(np.median(levels[index:bounds[k + 2]])))
        ratio = after / before
        spread = float(np.exp(np.median(spreads[bounds[k]:bounds[k + 2]])))
        size = max(ratio, 1 / ratio)
        if size >= min_ratio and size > spread:
            out.append(ChangePoint(index, ratio, before, after, float(q), float(p),
                                   index - bounds[k], bounds[k + 2] - index, spread))
    return out
