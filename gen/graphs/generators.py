"""Built-in matrices that need no download (docs/campaigns.md "Graphs"):
stencils on a regular grid (natural ordering, no periodic wrap, the
diagonal included) and random geometric graphs, each with its rows'
coordinates (the grid positions; the graph's points). Vectorised numpy."""
import functools
import itertools

import numpy as np

from gen.graphs.matrix import Pattern


def stencil(n, ndim, points):
    """The pattern of a POINTS-point stencil on n^ndim unknowns: 5 (2-D) or 7
    (3-D) reach the face neighbors, 27 (3-D) every neighbor within one step.
    Made in order, without a sort (10^7 rows in seconds): the offsets in
    lexicographic order are in ascending order of their column shift, so a
    row's columns come out ascending; a stencil is symmetric."""
    if points in (5, 7):
        offsets = [o for o in itertools.product((-1, 0, 1), repeat=ndim) if sum(map(abs, o)) <= 1]
    else:
        offsets = list(itertools.product((-1, 0, 1), repeat=ndim))
    size = n ** ndim
    strides = [n ** (ndim - 1 - d) for d in range(ndim)]
    # per dimension: whether a row has a neighbor below (o = -1) and above (o = +1)
    below, above = [], []
    for d in range(ndim):
        coordinate = np.arange(size, dtype=np.int64) // strides[d] % n
        below.append(coordinate > 0)
        above.append(coordinate < n - 1)
        del coordinate
    valid = np.ones((size, len(offsets)), dtype=bool)
    shifts = np.empty(len(offsets), dtype=np.int64)
    for j, offset in enumerate(offsets):
        shifts[j] = sum(o * strides[d] for d, o in enumerate(offset))
        for d, o in enumerate(offset):
            if o:
                valid[:, j] &= below[d] if o < 0 else above[d]
    del below, above
    per_row = valid.sum(axis=1)
    # the columns of the valid (row, offset) pairs, row by row: row + shift
    col = (np.arange(size, dtype=np.int64)[:, None] + shifts[None, :])[valid]
    del valid
    row = np.repeat(np.arange(size, dtype=np.int64), per_row)
    return Pattern(size, row, col, symmetric=True, coordinates=functools.partial(grid_coordinates, n, ndim))


def grid_coordinates(n, ndim):
    """The grid position of each of the n^ndim unknowns in the natural ordering
    (the first coordinate changes slowest), one int32 array per axis."""
    index = np.arange(n ** ndim, dtype=np.int32)  # n^ndim <= 10^8 (spec.MAX_UNKNOWNS)
    return [index // n ** (ndim - 1 - d) % n for d in range(ndim)]


def random_geometric(n, radius, dim, seed):
    """N points uniform in the unit square/cube (numpy PCG64(seed)); row i
    references itself and every point within RADIUS (Euclidean). The points
    are the pattern's coordinates (kept, not drawn again)."""
    points = np.random.Generator(np.random.PCG64(seed)).random((n, dim))
    cells = max(1, int(1 / radius))
    cell = np.minimum((points * cells).astype(np.int64), cells - 1)
    linear = np.ravel_multi_index(cell.T, (cells,) * dim)
    order = np.argsort(linear, kind="stable")
    sorted_cells = linear[order]
    starts = np.searchsorted(sorted_cells, np.arange(cells ** dim), side="left")
    ends = np.searchsorted(sorted_cells, np.arange(cells ** dim), side="right")
    rows, cols = [np.arange(n, dtype=np.int64)], [np.arange(n, dtype=np.int64)]
    for offset in itertools.product((-1, 0, 1), repeat=dim):
        other = cell + np.array(offset)
        inside = np.all((other >= 0) & (other < cells), axis=1)
        me = np.flatnonzero(inside)
        target = np.ravel_multi_index(other[inside].T, (cells,) * dim)
        counts = ends[target] - starts[target]
        total = int(counts.sum())
        if not total:
            continue
        mine = np.repeat(me, counts)
        first = np.repeat(starts[target] - np.cumsum(counts) + counts, counts)
        theirs = order[first + np.arange(total)]
        near = (np.sum((points[mine] - points[theirs]) ** 2, axis=1) <= radius * radius) & (mine != theirs)
        rows.append(mine[near])
        cols.append(theirs[near])
    return Pattern.of(n, np.concatenate(rows), np.concatenate(cols), coordinates=lambda: list(points.T))
