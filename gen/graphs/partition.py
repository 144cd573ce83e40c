"""Which process owns each row: METIS k-way (pymetis) with a recorded seed,
or a partition file the user gives (one 0-based part id per row)."""
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
