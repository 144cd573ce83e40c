"""Offline change points of cell series (archaeology; docs/history.md#offline-change-points):
circular binary segmentation (Olshen, Venkatraman, Lucito and Wigler
2004), which searches both ends of a segment, so that a slowdown that
was later fixed (a bump) is found at its start and at its end.

What repeats: the entry (an archive, or an analysis, added to the
history). Each entry of a cell has a level, the median of the logarithms
of its run medians (one wild run does not move it). The levels are the
data: a step is measured against the variation between entries, which
holds whatever moves whole campaigns (the machine's load while one ran),
not against the runs of one entry. Assumed: within a segment without a
change the levels are independent and normal with one variance.

The statistic. In a segment of n levels, an arc is a run of entries
[a, k) (at least MIN_PART of them, and at least MIN_PART outside it);
its t statistic compares the arc's mean with the mean of the rest, over
the pooled standard deviation within the two:

    T = (mean_in - mean_out) / (s * sqrt(1/n_in + 1/n_out)),
    s^2 = (SS_in + SS_out) / (n - 2)

An arc that ends with the segment is a step; one inside it is a bump.
The segment's statistic is the largest |T| over every arc (one pass of
prefix sums per series, all series at once in NumPy).

Its null. T is unchanged by the levels' location and scale, so under
the assumption its largest |T| has a distribution that depends on n
alone: it is simulated once per length (DRAWS normal series, seeded by
n) and shared by every cell of that length. p = (1 + draws reaching the
observed) / (draws + 1).

The hierarchy (CBS's): a significant segment is cut at the arc's start
and end (its end, where it ends before the segment does), and the parts
of at least MIN_LENGTH entries are searched again. changes.py chooses the
level each search must reach (across cells, and for the parts)."""
import hashlib
from dataclasses import dataclass, field

import numpy as np

DRAWS = 9999
# Entries inside an arc and outside it (with 2, two archives of one slow
# phase of this project's machine made bumps).
MIN_PART = 3
MIN_LENGTH = 6        # the shortest segment searched (below: "too few entries")
BATCH_ELEMENTS = 8_000_000   # float64 elements of one batch's arc arrays

_NULLS = {}


def arc_count(n):
    """How many arcs a segment of n entries has: [a, k) with MIN_PART
    entries or more inside and on each side of each of its ends that lies
    inside the segment (a >= MIN_PART; k = n, a step, or n - k >= MIN_PART;
    an arc from 0 is the step of the arc from its end)."""
    return sum(max(0, n - length - 2 * MIN_PART + 1) + 1 for length in range(MIN_PART, n - MIN_PART + 1))


def arc_statistics(x):
    """(largest |T|, its signed T, a, k) of each row of X (B, n).

    With the levels standardised (mean 0, sum of squares n), the pooled
    within sum of squares of an arc is n - D with D = n S^2 / (n_in
    n_out), S the arc's sum, so T^2 = (n - 2) D / (n - D): the largest
    |T| is the largest D, which needs the prefix sums alone. One pass per
    arc length, over every start at once."""
    count, n = x.shape
    zero = np.zeros(count)
    if arc_count(n) == 0 or count == 0:
        return zero, zero, np.zeros(count, np.intp), np.zeros(count, np.intp)
    centred = x - x.mean(axis=1, keepdims=True)
    scale = np.sqrt((centred * centred).mean(axis=1, keepdims=True))
    z = np.divide(centred, scale, out=np.zeros_like(centred), where=scale > 1e-300)
    s1 = np.zeros((count, n + 1))
    s1[:, 1:] = z.cumsum(axis=1)
    best = np.full(count, -1.0)
    best_sum = np.zeros(count)
    best_a = np.zeros(count, np.intp)
    best_length = np.zeros(count, np.intp)
    rows = np.arange(count)
    buffer = np.empty((count, n))
    m = MIN_PART
    for length in range(m, n - m + 1):
        inner = max(0, n - length - 2 * m + 1)            # arcs [a, a + length), a = m .. n - length - m
        sums = buffer[:, :inner + 1]
        np.subtract(s1[:, m + length:m + length + inner], s1[:, m:m + inner], out=sums[:, :inner])
        np.subtract(s1[:, n], s1[:, n - length], out=sums[:, inner])   # the step: [n - length, n)
        where = np.argmax(np.abs(sums), axis=1)
        arc_sum = sums[rows, where]
        value = arc_sum * arc_sum * (n / (length * (n - length)))
        better = value > best
        best[better] = value[better]
        best_sum[better] = arc_sum[better]
        best_a[better] = np.where(where == inner, n - length, m + where)[better]
        best_length[better] = length
    best = np.minimum(best, n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(best < n * (1 - 1e-12), np.sqrt((n - 2) * best / (n - best)), np.inf)
    t = np.where(best <= 1e-24, 0.0, t)
    return t, np.sign(best_sum) * t, best_a, best_a + best_length


def batched(x):
    """arc_statistics() in batches that keep memory bounded."""
    count, n = x.shape
    size = max(1, BATCH_ELEMENTS // max(1, 4 * (n + 1)))
    parts = [arc_statistics(x[i:i + size]) for i in range(0, count, size)]
    if not parts:
        return np.zeros(0), np.zeros(0), np.zeros(0, np.intp), np.zeros(0, np.intp)
    return tuple(np.concatenate(p) for p in zip(*parts))


def draws_for(n, draws=DRAWS):
    """Fewer draws for very long segments (the arcs grow as n^2)."""
    return int(min(draws, max(999, 2e8 // max(1, arc_count(n)))))


def null_of(n, draws=DRAWS):
    """The sorted largest |T| of normal series of length n: the null of
    that length, simulated once (seeded by n) and kept."""
    draws = draws_for(n, draws)
    key = (n, draws)
    if key not in _NULLS:
        seed = int.from_bytes(hashlib.sha256(f"segments {n}".encode()).digest()[:8], "little")
        rng = np.random.default_rng(seed)
        _NULLS[key] = np.sort(batched(rng.standard_normal((draws, n)))[0])
    return _NULLS[key]


def p_values(t, n, draws=DRAWS):
    """The p of the largest |T| of segments of length n."""
    null = null_of(n, draws)
    reached = len(null) - np.searchsorted(null, np.asarray(t, dtype=float) * (1 - 1e-12), side="left")
    return (1 + reached) / (len(null) + 1)


@dataclass
class Split:
    start: int          # the segment [start, end) searched
    end: int
    index: int          # the arc's first entry: a new level begins here
    back: int           # the arc's end (where the level changes again), or `end` for a step
    t: float            # the arc's t (positive: the arc is slower than the rest)
    p: float
    depth: int = 0
    parent: int = -1    # the split (its place in the cell's list) whose part this was; -1: none
    children: list = field(default_factory=list)

    def points(self):
        """The entries where a new level begins: the arc's start, and its end inside the segment."""
        return [self.index] + ([self.back] if self.back < self.end else [])


def search(levels, level_of, draws=DRAWS):
    """The hierarchical splits of many series at once. LEVELS: one 1-D
    array per series (its levels in order); LEVEL_OF(i, depth): the p a
    split of series i at that depth must reach. Returns, per series, its
    Splits in the order found (the first, when there is one, is the whole
    series'), and each whole series' p (nan where it is shorter than
    MIN_LENGTH: too few entries)."""
    found = [[] for _ in levels]
    first_p = np.full(len(levels), np.nan)
    pending = [(i, 0, len(x), 0, -1) for i, x in enumerate(levels) if len(x) >= MIN_LENGTH]
    while pending:
        by_length = {}
        for item in pending:
            by_length.setdefault(item[2] - item[1], []).append(item)
        pending = []
        for n, items in sorted(by_length.items()):
            _, t, a, k = batched(np.array([levels[i][s:e] for i, s, e, _, _ in items], dtype=float))
            p = p_values(np.abs(t), n, draws)
            for (i, s, e, depth, parent), ti, ai, ki, pi in zip(items, t, a, k, p):
                if depth == 0:
                    first_p[i] = pi
                if pi > level_of(i, depth):
                    continue
                split = Split(s, e, s + int(ai), s + int(ki), float(ti), float(pi), depth, parent)
                found[i].append(split)
                me = len(found[i]) - 1
                if parent >= 0:
                    found[i][parent].children.append(me)
                cuts = [s] + split.points() + [e]
                for s2, e2 in zip(cuts[:-1], cuts[1:]):
                    if e2 - s2 >= MIN_LENGTH:
                        pending.append((i, s2, e2, depth + 1, me))
    return found, first_p
