"""The description of one graph file (docs/archive.md "inputs/graphs/"):
one CSV row that the archive keeps and the analyzer shows in graphs.csv
and report.html."""
import numpy as np

COLUMNS = ("graph", "file", "p", "partition", "partition_seed", "rows", "nonzeros", "edges",
           "degree_min", "degree_mean", "degree_max", "entries_min", "entries_mean", "entries_max",
           "edge_cut")


def describe(spec, file_name, nprocs, source, dest, count, pattern=None, cut=None):
    """The row for the graph file FILE_NAME of SPEC on NPROCS processes.
    degree: destinations per process; entries: what a process sends in all
    (times msize: its bytes); rows, nonzeros and edge_cut are empty for edge lists."""
    degree = np.bincount(source, minlength=nprocs)
    entries = np.bincount(source, weights=count, minlength=nprocs)
    return {"graph": spec.text, "file": file_name, "p": nprocs,
            "partition": spec.partition or "given", "partition_seed": spec.partition_seed,
            "rows": pattern.n if pattern is not None else None,
            "nonzeros": pattern.nonzeros if pattern is not None else None,
            "edges": len(source), "degree_min": int(degree.min()), "degree_mean": round(float(degree.mean()), 3),
            "degree_max": int(degree.max()), "entries_min": int(entries.min()),
            "entries_mean": round(float(entries.mean()), 3), "entries_max": int(entries.max()),
            "edge_cut": cut}
