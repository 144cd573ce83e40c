"""Reads a process-level edge list: CSV `source,dest,bytes`, one row per
directed edge (process SOURCE sends BYTES bytes to DEST), ranks 0-based.
The rows become the graph file's rows as they are (the count is the byte
count: run it with msize 1 to send exactly these bytes)."""
import re

import numpy as np

from gen.errors import ConfigError, file_error

HEADER = "source,dest,bytes"
ROW = re.compile(r"\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*$")


def read(path):
    """(source, dest, count) int64 arrays in file order; ConfigError names file and line."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
    except OSError as e:
        raise file_error(e, path) from None
    header = lines[0].strip().replace(" ", "") if lines else ""
    if header == "source,dest":
        raise ConfigError(path, 1, "the edges are given without their sizes: every edge needs its bytes "
                          f"(the header must be '{HEADER}')")
    if header != HEADER:
        raise ConfigError(path, 1, f"the header must be '{HEADER}'")
    source, dest, count, seen = [], [], [], {}
    for number, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        match = ROW.match(line)
        if not match:
            raise ConfigError(path, number, f"'{line.strip()}' is not SOURCE,DEST,BYTES (three integers >= 0)")
        s, d, b = (int(g) for g in match.groups())
        if s == d:
            raise ConfigError(path, number, f"process {s} sends to itself (an edge joins two processes)")
        if b < 1:
            raise ConfigError(path, number, "bytes must be at least 1")
        if (s, d) in seen:
            raise ConfigError(path, number, f"edge {s} -> {d} given twice (also line {seen[s, d]})")
        seen[s, d] = number
        source.append(s)
        dest.append(d)
        count.append(b)
    if not source:
        raise ConfigError(path, len(lines), "no edges")
    return tuple(np.array(a, dtype=np.int64) for a in (source, dest, count))


def check_processes(path, source, dest, nprocs):
    """ConfigError if the list names a process >= NPROCS (the line of the first)."""
    bad = np.flatnonzero((source >= nprocs) | (dest >= nprocs))
    if len(bad):
        i = bad[0]
        rank = max(source[i], dest[i])
        raise ConfigError(path, line_of(path, i), f"names process {rank}, but the deployment has {nprocs} "
                          f"processes (ranks 0..{nprocs - 1})")


def line_of(path, index):
    """The file line of the INDEX-th edge row (blank lines skipped)."""
    with open(path, encoding="utf-8", errors="replace") as f:
        rows = [n for n, line in enumerate(f.read().split("\n")[1:], 2) if line.strip()]
    return rows[index]
