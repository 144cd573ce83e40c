"""The SpMV halo of a partitioned matrix (SPEC §7.2): process i receives
from process j the distinct vector entries of the columns that i's rows
reference and j owns. That is the graph: one edge j -> i per such pair,
its count the number of those entries."""
import numpy as np

from gen.graphs.matrix import distinct, distinct_counts


def halo_edges(pattern, parts, nprocs):
    """(source, dest, count) int64 arrays, sorted by source, then dest
    (ascending neighbor rank: the GIVEN order the generator writes)."""
    receiver = parts[pattern.row]
    owner = parts[pattern.col]
    remote = receiver != owner
    needed = distinct(receiver[remote] * pattern.n + pattern.col[remote])  # (i, column) once each
    receiver, column = needed // pattern.n, needed % pattern.n
    edges, count = distinct_counts(parts[column] * nprocs + receiver)
    return edges // nprocs, edges % nprocs, count


def edge_cut(pattern, parts):
    """Undirected edges of A + A^T (diagonal excluded) whose ends lie in
    different parts: the quantity METIS minimises."""
    starts, neighbors = pattern.symmetric_adjacency()
    row = np.repeat(np.arange(pattern.n, dtype=np.int64), np.diff(starts))
    return int(np.count_nonzero(parts[row] != parts[neighbors]) // 2)
