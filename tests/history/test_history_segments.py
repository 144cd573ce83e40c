"""Offline change points (history/segments.py: circular binary
segmentation of a series' levels, its null simulated per length;
history/cell_changes.py: the false discovery rate across cells) on series
whose answer is known."""
import numpy as np
import pytest

from history import segments
from history.cell_changes import search_cells, welch_interval


def brute_force(x):
    """The largest |t| over every arc of X, computed arc by arc."""
    n = len(x)
    best = (0.0, None)
    m = segments.MIN_PART
    for a in range(m, n - m + 1):
        for k in list(range(a + m, n - m + 1)) + [n]:
            if k - a < m:
                continue
            inside, outside = x[a:k], np.r_[x[:a], x[k:]]
            pooled = (((inside - inside.mean()) ** 2).sum() + ((outside - outside.mean()) ** 2).sum()) / (n - 2)
            t = (inside.mean() - outside.mean()) / np.sqrt(pooled * (1 / len(inside) + 1 / len(outside)))
            if abs(t) > abs(best[0]):
                best = (t, (a, k))
    return best


def levels(rng, count, changes=(), sd=0.05):
    """COUNT levels around log(10) with noise SD, plus FACTOR on [start, end) for each (start, end, factor)."""
    x = np.log(10) + rng.normal(0, sd, count)
    for start, end, factor in changes:
        x[start:end] += np.log(factor)
    return x


def test_the_arc_statistic_is_the_largest_t_of_every_arc():
    rng = np.random.default_rng(1)
    for _ in range(150):
        x = rng.normal(0, 1, rng.integers(segments.MIN_LENGTH, 25))
        t, signed, a, k = segments.arc_statistics(x[None, :])
        expected, (ea, ek) = brute_force(x)
        assert t[0] == pytest.approx(abs(expected), rel=1e-9) and signed[0] == pytest.approx(expected, rel=1e-9)
        assert (a[0], k[0]) == (ea, ek)


def test_a_bump_is_found_at_both_ends():
    # Slow for 4 entries, then fixed: the 1000x at entries 5-8 of 16, and 3x bumps at 16, 20 and 30 entries.
    rng = np.random.default_rng(2)
    for count, start, factor in ((16, 4, 1000), (16, 4, 3), (20, 8, 3), (30, 10, 3), (30, 20, 1.5)):
        found, p = segments.search([levels(rng, count, [(start, start + 4, factor)])], lambda i, depth: 0.05)
        points = sorted({q for split in found[0] for q in split.points()})
        assert points == [start, start + 4], (count, start, factor, found)
        assert found[0][0].p <= 0.001 and found[0][0].t > 0


def test_a_step_and_two_steps_are_found_where_they_begin():
    rng = np.random.default_rng(3)
    for count, at in ((8, 4), (12, 3), (20, 15), (40, 20)):
        found, _ = segments.search([levels(rng, count, [(at, count, 1.3)])], lambda i, depth: 0.05)
        assert [q for split in found[0] for q in split.points()] == [at], (count, at)
        assert found[0][0].back == found[0][0].end   # a step: the arc ends with the series
    x = levels(rng, 18, [(6, 18, 1.4), (12, 18, 1 / 1.4 / 1.3)])
    found, _ = segments.search([x], lambda i, depth: 0.05)
    assert sorted(q for split in found[0] for q in split.points()) == [6, 12]


def test_false_alerts_without_change_stay_at_alpha():
    # 2000 normal series of 8, 20 and 50 entries: the share with a first
    # split at p <= 0.05 is 0.05 (the null is the same simulation's law).
    rng = np.random.default_rng(4)
    for count in (8, 20, 50):
        _, p = segments.search([rng.normal(0, 1, count) for _ in range(2000)], lambda i, depth: -1)
        share = np.mean(p <= 0.05)
        assert 0.035 <= share <= 0.065, (count, share)
        assert np.mean(p <= 0.01) <= 0.02


def test_series_too_short_are_not_searched_and_the_answer_is_the_same_every_time():
    rng = np.random.default_rng(5)
    found, p = segments.search([levels(rng, segments.MIN_LENGTH - 1, [(2, 5, 5)])], lambda i, depth: 1)
    assert found == [[]] and np.isnan(p[0])
    x = levels(rng, 12, [(6, 12, 1.2)])
    assert segments.search([x], lambda i, d: 0.05) == segments.search([x.copy()], lambda i, d: 0.05)
    assert np.array_equal(segments.null_of(12), segments.null_of(12))


def test_across_cells_the_false_discovery_rate_is_controlled():
    # 200 cells of 20 entries, 10 of them with a 1.5x step: Benjamini-Hochberg
    # over the cells' p keeps the changed ones and few of the others.
    rng = np.random.default_rng(6)
    series = [levels(rng, 20, [(10, 20, 1.5)] if i < 10 else []) for i in range(200)]
    kept, searched, chosen = search_cells(series, 0.05)
    assert searched == 200 and all(kept[i] for i in range(10))
    assert sum(bool(k) for k in kept[10:]) <= 2 and chosen == sum(bool(k) for k in kept)
    # Alone, a cell is searched at alpha; among 200 clean cells the same p is not enough.
    lone = levels(rng, 20, [(10, 20, 1.12)])
    assert search_cells([lone], 0.05)[0][0]
    assert not search_cells([lone] + [levels(rng, 20) for _ in range(199)], 0.05)[0][0]


def test_a_change_s_size_has_a_welch_interval():
    diff, half = welch_interval(np.array([0.0, 0.1, -0.1, 0.05]), np.array([0.5, 0.6, 0.4]))
    assert diff == pytest.approx(0.5 - 0.0125)
    assert 0.1 < half < 0.3
    assert np.isnan(welch_interval(np.array([0.0]), np.array([1.0]))[1])
