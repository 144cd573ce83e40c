"""The SpMV halo of a partitioned matrix (SPEC §7.2): process i receives
from process j the distinct vector entries of the columns that i's rows
reference and j owns. That is the graph: one edge j -> i per such pair,
its count the number of those entries."""
import numpy as np

from gen.graphs.matrix import distinct, distinct_counts

# nonzeros looked at per pass: a pass's part ids of rows and columns are two
# arrays of this length, not of all nonzeros (7 x 10^7 at 10^7 rows)
CHUNK = 1 << 22


def chunks(size):
    return (slice(start, start + CHUNK) for start in range(0, size, CHUNK))


def compact(parts, nprocs):
    """PARTS as int32 where the part ids fit: half the memory per gathered id."""
    return np.asarray(parts, dtype=np.int32 if nprocs < 2 ** 31 else np.int64)


def halo_edges(pattern, parts, nprocs):
    """(source, dest, count) int64 arrays, sorted by source, then dest
    (ascending neighbor rank: the GIVEN order the generator writes)."""
    parts = compact(parts, nprocs)
    wanted = []  # receiver * n + column of every nonzero whose column another part owns
    for chunk in chunks(pattern.nonzeros):
        row, col = pattern.row[chunk], pattern.col[chunk]
        receiver = parts[row]
        remote = receiver != parts[col]
        key = receiver[remote].astype(np.int64)
        key *= pattern.n
        key += col[remote]
        wanted.append(key)
    needed = distinct(np.concatenate(wanted) if wanted else np.zeros(0, dtype=np.int64))  # (i, column) once each
    del wanted
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
        parts = compact(parts, int(parts.max(initial=0)) + 1)
        cut = sum(int(np.count_nonzero(parts[pattern.row[chunk]] != parts[pattern.col[chunk]]))
                  for chunk in chunks(pattern.nonzeros))
        return cut // 2
    starts, neighbors = pattern.symmetric_adjacency()
    row = np.repeat(np.arange(pattern.n, dtype=np.int64), np.diff(starts))
    return int(np.count_nonzero(parts[row] != parts[neighbors]) // 2)
