"""Which process owns each row: METIS k-way (pymetis) with a recorded seed,
recursive coordinate bisection of the rows' points (geometric), or a
partition file the user gives (one 0-based part id per row)."""
import numpy as np

from gen.errors import ConfigError, NbhError, file_error


def metis(pattern, nprocs, seed):
    """Part ids (int64, one per row) of PATTERN split k-way into NPROCS parts
    by METIS on the undirected graph of A + A^T; the same seed, the same parts."""
    if nprocs == 1:
        return np.zeros(pattern.n, dtype=np.int64)
    try:
        import pymetis
    except ImportError:
        raise NbhError("partition=metis needs the Python package pymetis (make deps installs it)") from None
    starts, neighbors = pattern.symmetric_adjacency()
    if not neighbors.size:  # no edge at all: METIS has nothing to balance but rows
        return np.arange(pattern.n, dtype=np.int64) * nprocs // pattern.n
    options = pymetis.Options(seed=seed)
    adjacency = pymetis.CSRAdjacency(starts.astype(np.int32), neighbors.astype(np.int32))
    _, parts = pymetis.part_graph(nprocs, adjacency=adjacency, options=options)
    return np.asarray(parts, dtype=np.int64)


def geometric(coordinates, nprocs):
    """Part ids (int64, one per row) of the rows at COORDINATES (one array per
    axis) split into NPROCS parts by recursive coordinate bisection (RCB, as
    Zoltan's): a box of rows meant for k parts is cut across the longest extent
    of its rows' bounding box (the first such axis on a tie) into ceil(k/2) and
    floor(k/2) parts; the first side takes the rows of least coordinate, ties
    broken by row. Each side's row count follows from part j's fixed share of
    the rows (part j: floor(j n / p) .. floor((j + 1) n / p)), so part sizes
    differ by at most 1 for any p <= n and the same points give the same parts.
    Where every cut falls between planes of a grid (a 2-D grid of even extent
    into 4: its quadrants; 6 x 6 into 6: boxes of 3 x 2), the parts are the
    boxes of a Cartesian decomposition; elsewhere a part's boundary may step
    by a row (6 x 6 into 9 is no 3 x 3 decomposition: its first cut is 5:4).
    Each cut is a selection (np.partition), not a sort: O(n log p) in all."""
    n = len(coordinates[0])
    parts = np.empty(n, dtype=np.int64)

    def share(part):  # the first row of part PART's share
        return part * n // nprocs

    # (rows ascending, their coordinates, first part, parts): a box still to cut;
    # each box holds its own copies, so a cut reads contiguous memory
    boxes = [(np.arange(n, dtype=np.int32 if n < 2 ** 31 else np.int64), list(coordinates), 0, nprocs)]
    while boxes:
        rows, points, first, k = boxes.pop()
        if k == 1:
            parts[rows] = first
            continue
        low_parts = (k + 1) // 2
        low_rows = share(first + low_parts) - share(first)  # >= 1 as p <= n
        extents = [axis.max() - axis.min() for axis in points]
        along = points[max(range(len(points)), key=lambda axis: (extents[axis], -axis))]
        cut = np.partition(along, low_rows - 1)[low_rows - 1]  # the low side's greatest coordinate
        low = along < cut
        tied = np.flatnonzero(along == cut)
        low[tied[:low_rows - np.count_nonzero(low)]] = True  # rows are ascending: the first rows of the tie
        del along, tied
        high = ~low
        boxes.append((rows[high], [axis[high] for axis in points], first + low_parts, k - low_parts))
        boxes.append((rows[low], [axis[low] for axis in points], first, low_parts))
        del rows, points, low, high
    return parts


def read(path, rows, nprocs):
    """The part ids of the partition file PATH for ROWS rows and NPROCS parts."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise file_error(e, path) from None
    if lines and lines[-1] == "":
        lines.pop()
    words = [line.strip() for line in lines]
    if all(w.isdigit() for w in words) and words:
        parts = np.array(words, dtype=np.int64)
        if len(parts) == rows and parts.max() < nprocs:
            return parts
    for number, word in enumerate(words, 1):
        if not word.isdigit():
            raise ConfigError(path, number, f"'{word}' is not a part id (an integer >= 0, one per line)")
        if int(word) >= nprocs:
            raise ConfigError(path, number, f"part {word} does not exist: the deployment has {nprocs} processes "
                              f"(parts 0..{nprocs - 1})")
    raise ConfigError(path, len(words), f"{len(words)} part ids for a matrix of {rows} rows "
                      "(one line per row)")
