"""A sparse matrix pattern: N x N, nonzeros as coordinate arrays (0-based,
int64), and where the matrix has them, its rows' points in space."""
import dataclasses

import numpy as np


def distinct(keys):
    """The distinct values of the int64 array KEYS, ascending (np.unique
    without its overhead: numpy 2's np.unique is ~100x slower than a sort here)."""
    keys = np.sort(keys)
    if keys.size:
        keep = np.empty(keys.size, dtype=bool)
        keep[0] = True
        np.not_equal(keys[1:], keys[:-1], out=keep[1:])
        keys = keys[keep]
    return keys


def distinct_counts(keys):
    """(distinct values ascending, how often each occurs) of the int64 array KEYS."""
    keys = np.sort(keys)
    if not keys.size:
        return keys, np.zeros(0, dtype=np.int64)
    first = np.flatnonzero(np.concatenate([[True], keys[1:] != keys[:-1]]))
    return keys[first], np.diff(np.append(first, keys.size))


@dataclasses.dataclass
class Pattern:
    n: int
    row: np.ndarray
    col: np.ndarray
    symmetric: bool = False  # known to equal its transpose (a stencil): A + A^T is A
    # the rows' coordinates, made when asked (partition=geometric): a function
    # returning one array of n per axis; None where the matrix has no points (.mtx)
    coordinates: object = None

    @classmethod
    def of(cls, n, row, col, coordinates=None):
        """The pattern with the distinct (row, col) pairs of ROW, COL (sorted by row, then column)."""
        keys = distinct(np.asarray(row, dtype=np.int64) * n + np.asarray(col, dtype=np.int64))
        return cls(n, keys // n, keys % n, coordinates=coordinates)

    @property
    def nonzeros(self):
        return len(self.row)

    def symmetric_adjacency(self):
        """CSR (starts, neighbors) of the undirected graph of A + A^T without
        the diagonal: what METIS partitions (computed once, kept: every
        process count and the edge cut use it)."""
        if getattr(self, "_adjacency", None) is None:
            self._adjacency = self._symmetric_adjacency()
        return self._adjacency

    def _symmetric_adjacency(self):
        off = self.row != self.col
        if self.symmetric:  # its own off-diagonal entries, already sorted by row and column
            row, col = self.row[off], self.col[off]
        else:
            row = np.concatenate([self.row[off], self.col[off]])
            col = np.concatenate([self.col[off], self.row[off]])
            keys = distinct(row * self.n + col)
            row, col = keys // self.n, keys % self.n
        starts = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(np.bincount(row, minlength=self.n), out=starts[1:])
        return starts, col
