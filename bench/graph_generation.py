"""bench/bench-graphs: times generate's graph steps on a 10^6-row matrix at p = 1024."""
import argparse
import resource
import sys
import tempfile
import time

sys.path.insert(0, ".")
from gen import whole_files  # noqa: E402
from gen.graphs import describe, files, generators, halo, partition  # noqa: E402
from gen.graphs.spec import parse  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100, help="grid extent (n^3 rows)")
    parser.add_argument("--p", type=int, default=1024, help="processes (parts)")
    args = parser.parse_args()
    spec = parse(f"stencil3d n={args.n}")
    steps = []

    def step(name, function):
        start = time.perf_counter()
        value = function()
        steps.append((name, time.perf_counter() - start))
        return value

    matrix = step("stencil matrix", lambda: generators.stencil(args.n, 3, 7))
    parts = step("METIS k-way", lambda: partition.metis(matrix, args.p, spec.partition_seed))
    source, dest, count = step("SpMV halo", lambda: halo.halo_edges(matrix, parts, args.p))
    cut = step("edge cut", lambda: halo.edge_cut(matrix, parts))
    with tempfile.TemporaryDirectory() as folder:
        step("write graph file", lambda: whole_files.write_text(f"{folder}/g.csv",
                                                                files.graph_text(source, dest, count)))
    about = describe.describe(spec, spec.file_name(args.p), args.p, source, dest, count, matrix, cut)
    total = sum(seconds for _, seconds in steps)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2 ** 20  # KiB -> GiB
    print(f"graph {spec.text}: {matrix.n} rows, {matrix.nonzeros} nonzeros, p = {args.p}")
    for name, seconds in steps:
        print(f"  {name:<18} {seconds:7.2f} s")
    print(f"total {total:.2f} s (target < 30 s), peak memory {peak:.2f} GiB (target < 4 GiB)")
    print(f"graph: {about['edges']} edges, degree {about['degree_min']}/{about['degree_mean']}/{about['degree_max']}, "
          f"entries sent {about['entries_min']}/{about['entries_mean']}/{about['entries_max']}, edge cut {cut}")


if __name__ == "__main__":
    main()
