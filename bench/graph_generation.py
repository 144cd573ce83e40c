"""bench/bench-graphs: times generate's graph steps (wall and CPU seconds, the
load average beside them: on a shared machine the wall time is what the
others leave) and peak memory on a built-in matrix (a 3-D stencil, or
--graph) into p parts by METIS or by coordinate bisection (--partition),
then shows the kernel's memory per process following its degree, not the
file's edges. --record appends the figures to a CSV file; --compare prints
the partitions recorded there side by side: what the faster one costs in
edge cut and entries sent."""
import argparse
import csv
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, ".")
from gen import whole_files  # noqa: E402
from gen.graphs import describe, files, halo, partition  # noqa: E402
from gen.graphs.spec import parse  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100, help="grid extent (n^3 rows)")
    parser.add_argument("--graph", help="another graph spec of a built-in matrix (without partition=), "
                        "instead of stencil3d n=N")
    parser.add_argument("--p", type=int, default=1024, help="processes (parts)")
    parser.add_argument("--target", type=float, default=30, help="the target for the total, seconds")
    parser.add_argument("--partition", choices=("metis", "geometric"), default="metis",
                        help="METIS k-way (the default of a graph spec) or recursive coordinate bisection")
    parser.add_argument("--full-p", type=int, default=1024,
                        help="processes of the Full graph whose file the kernel's reader is measured on; "
                        "0: no kernel memory")
    parser.add_argument("--record", help="append this run's figures to this CSV file")
    parser.add_argument("--compare", help="only print the runs recorded in this CSV file side by side")
    args = parser.parse_args()
    if args.compare:
        compare(args.compare)
        return
    graph = args.graph or f"stencil3d n={args.n}"
    spec = parse(f"{graph} partition={args.partition}")
    steps = []

    def step(name, function):
        start, cpu = time.perf_counter(), time.process_time()
        value = function()
        steps.append((name, time.perf_counter() - start, time.process_time() - cpu, peak_gib()))
        return value

    matrix = step(f"{spec.kind} matrix", lambda: files.load_matrix(spec, "."))
    if spec.uses_metis:
        parts = step("METIS k-way", lambda: partition.metis(matrix, args.p, spec.partition_seed))
    else:
        parts = step("coordinate bisection", lambda: partition.geometric(matrix.coordinates(), args.p))
    source, dest, count = step("SpMV halo", lambda: halo.halo_edges(matrix, parts, args.p))
    cut = step("edge cut", lambda: halo.edge_cut(matrix, parts))
    folder = tempfile.mkdtemp()
    step("write graph file", lambda: whole_files.write_text(f"{folder}/g.csv", files.graph_text(source, dest, count)))
    about = describe.describe(spec, spec.file_name(args.p), args.p, source, dest, count, matrix, cut)
    total = sum(step[1] for step in steps)
    cpu = sum(step[2] for step in steps)
    peak = peak_gib()
    load = open("/proc/loadavg").read().split()[0]
    print(f"graph {spec.text}: {matrix.n} rows, {matrix.nonzeros} nonzeros, p = {args.p} (load average {load})")
    for name, seconds, cpu_seconds, peak_so_far in steps:
        print(f"  {name:<20} {seconds:7.2f} s (CPU {cpu_seconds:7.2f} s), peak memory so far {peak_so_far:5.2f} GiB")
    print(f"total {total:.2f} s, CPU {cpu:.2f} s (target < {args.target:g} s), peak memory {peak:.2f} GiB "
          f"(target < 4 GiB)")
    print(f"graph: {about['edges']} edges, degree {about['degree_min']}/{about['degree_mean']}/{about['degree_max']}, "
          f"entries sent {about['entries_min']}/{about['entries_mean']}/{about['entries_max']}, edge cut {cut}")
    if args.full_p:
        kernel_memory(folder, source, dest, args.p, args.full_p)
    whole_files.remove_tree(folder)
    if args.record:
        record(args.record, {"graph": graph, "partition": args.partition, "rows": matrix.n, "p": args.p,
                             "seconds": round(total, 2),
                             "cpu_seconds": round(cpu, 2), "peak_gib": round(peak, 2), "load": load,
                             "edge_cut": cut, "entries_mean": about["entries_mean"],
                             "entries_max": about["entries_max"], "degree_max": about["degree_max"]})


def peak_gib():
    """This process's peak memory (max RSS) so far."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20  # KiB -> GiB


FIGURES = ("graph", "partition", "rows", "p", "seconds", "cpu_seconds", "peak_gib", "load", "edge_cut", "entries_mean",
           "entries_max", "degree_max")


def record(path, row):
    new = not os.path.exists(path) or not os.path.getsize(path)
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, FIGURES)
        if new:
            writer.writeheader()
        writer.writerow(row)


def compare(path):
    """The recorded partitions of one matrix side by side, each against the first."""
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    first = rows[0]
    print(f"partitions of {first['graph']} ({first['rows']} rows) into p = {first['p']}, "
          f"against {first['partition']}:")
    print(f"  {'partition':<10} {'wall s':>8} {'CPU s':>8} {'peak GiB':>9} {'edge cut':>10} "
          f"{'entries sent max/mean':>22} {'degree max':>10}")
    for row in rows:
        spread = float(row["entries_max"]) / float(row["entries_mean"])
        versus = ("" if row is first else
                  f"  (CPU x{float(row['cpu_seconds']) / float(first['cpu_seconds']):.2f}, "
                  f"edge cut x{int(row['edge_cut']) / int(first['edge_cut']):.2f}, "
                  f"entries mean x{float(row['entries_mean']) / float(first['entries_mean']):.2f}, "
                  f"max x{int(row['entries_max']) / int(first['entries_max']):.2f})")
        print(f"  {row['partition']:<10} {float(row['seconds']):8.2f} {float(row['cpu_seconds']):8.2f} "
              f"{float(row['peak_gib']):9.2f} {int(row['edge_cut']):10d} "
              f"{row['entries_max'] + ' / ' + row['entries_mean'] + f' = {spread:.2f}':>22} "
              f"{int(row['degree_max']):10d}{versus}")


def kernel_memory(folder, source, dest, p, full_p):
    """The kernel's reader (build/nbh-graph-rows) as the processes of least and
    most degree of the graph, and as a process of Full on full_p (every
    process a neighbor of every other: p(p-1) edges, the largest graph file of
    p processes; at p = 16384 268 million lines, so a smaller p), each in a
    process of its own: peak memory against degree."""
    tool = os.path.join(os.environ.get("NBH_BUILD", "build"), "nbh-graph-rows")
    if not os.access(tool, os.X_OK):
        print(f"kernel memory: {tool} is not built (make); skipped")
        return
    ranks = np.arange(full_p)
    senders, others = np.meshgrid(ranks, ranks, indexing="ij")
    keep = senders != others
    full = f"{folder}/full.csv"
    whole_files.write_text(full, files.graph_text(senders[keep], others[keep], np.ones(keep.sum(), dtype=np.int64)))
    degree = np.bincount(source, minlength=p) + np.bincount(dest, minlength=p)
    cases = [(f"{folder}/g.csv", len(source), int(np.argmin(degree))),
             (f"{folder}/g.csv", len(source), int(np.argmax(degree))),
             (full, int(keep.sum()), 0)]
    print("kernel memory per process (the kernel's graph reader; the MPI library adds its own):")
    for path, edges, rank in cases:
        size = os.path.getsize(path) / 2 ** 20
        procs = full_p if path == full else p
        line = subprocess.run([tool, path, str(procs), str(rank)], capture_output=True, text=True, check=True).stdout
        print(f"  file of {edges:>8} edges ({size:5.1f} MiB): {line.strip()}")


if __name__ == "__main__":
    main()
