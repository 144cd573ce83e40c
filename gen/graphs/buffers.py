"""What an experiment on a graph needs of the kernel, from the graph file
itself (the kernel's own check: kernel/graph_inputs.c buffers_fit): buffer
bytes per process within the memory limit, and every count and displacement
within an MPI int. Checked at generate, so a deployment the kernel would
refuse stops before anything runs (rules.deployment_problem cannot know a
graph's degrees)."""
import numpy as np

INT_MAX = 2 ** 31 - 1


class Loads:
    """Per process of one graph file: in/out degree and entries, and the file's largest count."""

    def __init__(self, source, dest, count, nprocs):
        self.indegree = np.bincount(dest, minlength=nprocs).astype(np.float64)
        self.outdegree = np.bincount(source, minlength=nprocs).astype(np.float64)
        self.in_entries = np.bincount(dest, weights=count, minlength=nprocs)
        self.out_entries = np.bincount(source, weights=count, minlength=nprocs)
        self.largest = float(count.max()) if len(count) else 0.0
        self.nprocs = nprocs


def problem(reg, row, loads, file_name):
    """Why the kernel would refuse experiment ROW on the graph with LOADS, or None."""
    operation = reg.operations[row["op"]]
    if operation["moves_data"] != "1":
        return None
    msize = row["msize"]
    elements = msize // int(reg.datatypes[row["datatype"]]["size"])
    alltoall = operation["pattern"] == "alltoall"
    if operation["variant"] and operation["family"] in ("neighbor", "p2p", "node_aware"):  # the edge counts
        incoming = loads.in_entries if alltoall else loads.indegree * loads.largest
        outgoing = loads.out_entries if alltoall else np.full(loads.nprocs, loads.largest)
        largest = np.maximum(incoming, outgoing) * elements
    else:
        incoming = np.zeros(loads.nprocs) + reg.blocks(row["op"], "recv", loads.indegree, loads.nprocs)
        outgoing = np.zeros(loads.nprocs) + reg.blocks(row["op"], "send", loads.outdegree, loads.nprocs)
        largest = np.full(loads.nprocs, float(elements))
    need = (incoming + outgoing) * msize
    worst = int(np.argmax(need))
    if need[worst] > reg.limits["max_memory"]:
        return (f"msize {msize} needs {need[worst]:.0f} bytes of buffers on process {worst} of graph file "
                f"{file_name}, over the kernel's {reg.limits['max_memory']}")
    worst = int(np.argmax(largest))
    if largest[worst] > INT_MAX:
        return (f"process {worst} of graph file {file_name} would need {largest[worst]:.0f} elements in one "
                "count or displacement, more than an MPI int holds")
    return None
