"""The SpMV halo of a partitioned matrix (SPEC §7.2): process i receives
from process j the distinct vector entries of the columns that i's rows
reference and j owns. That is the graph: one edge j -> i per such pair,
its count the number of those entries."""
import numpy as np

from gen.graphs.matrix import distinct, distinct_counts


def halo_edges(pattern, parts, nprocs):
    """(source, dest, count) int64 arrays, sorted by source, then dest
    (ascending neighbor rank: the GIVEN order the generator writes)."""
    parts = np.asarray(parts, dtype=np.int32 if nprocs < 2 ** 31 else np.int64)  # half the memory per nonzero
    receiver = parts[pattern.row]
    remote = receiver != parts[pattern.col]
    receiver = receiver[remote].astype(np.int64)
    receiver *= pattern.n
    receiver += pattern.col[remote]
    del remote
    needed = distinct(receiver)  # (i, column) once each
    del receiver
    receiver, column = needed // pattern.n, needed % pattern.n
    del needed
    edges, count = distinct_counts(parts[column].astype(np.int64) * nprocs + receiver)
    return edges // nprocs, edges % nprocs, count


def edge_cut(pattern, parts):
    """Undirected edges of A + A^T (diagonal excluded) whose ends lie in
    different parts: the quantity METIS minimises. A symmetric pattern's
    nonzeros are those edges each way, counted without its adjacency."""
    parts = np.asarray(parts)
    if pattern.symmetric:
        return int(np.count_nonzero(parts[pattern.row] != parts[pattern.col]) // 2)
    starts, neighbors = pattern.symmetric_adjacency()
    row = np.repeat(np.arange(pattern.n, dtype=np.int64), np.diff(starts))
    return int(np.count_nonzero(parts[row] != parts[neighbors]) // 2)
