"""Figures for bench/bench-datatypes (see there)."""
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "kernel"))
from kernel_runner import BUILD, LIBRARIES, input_text, launch_command  # noqa: E402

NREP = 5000
# The same 64000 bytes of ints per neighbor, contiguous and in a tiled layout
# (Variant 1, A = 10), described by the normal constructor and by a vector.
OVERHEAD = [dict(op="neighbor_alltoall", topology="cart", ndim=1, datatype="int", msize=64000, nrep=NREP,
                 **layout) for layout in (
                     dict(layout="contiguous"),
                     dict(layout="tiled", unit=10, stride=12),
                     dict(layout="tiled", unit=10, stride=12, type_constructor="vector"),
                     dict(layout="tiled", unit=10, stride=12, type_constructor="struct"))]


def run(library, nprocs, argv, launch_env=()):
    command, env = launch_command(library, nprocs, argv, launch_env)
    return subprocess.run(command, env=env, capture_output=True, text=True, check=True, timeout=900).stdout


def noop_shim(library, directory):
    shim = directory / f"libnoop-{library}.so"
    mpicc = {"openmpi": "mpicc.openmpi", "mpich": "mpicc.mpich"}[library]
    subprocess.run([mpicc, "-shared", "-fPIC", "-O2", str(ROOT / "bench" / "pmpi_noop.c"), "-o", str(shim)],
                   check=True)
    return shim


def overhead(library, directory):
    rows = [dict(e, id=i + 1) for i, e in enumerate(OVERHEAD)]
    path = directory / f"overhead-{library}.csv"
    path.write_text(input_text(rows))
    prefix = directory / f"overhead-{library}"
    shim = noop_shim(library, directory)
    preload = [("LD_PRELOAD", " ".join(filter(None, [str(shim), os.environ.get("NBH_BENCH_PRELOAD", "")])))]
    if library == "mpich":  # keep the environment's yield shim too
        preload = [("LD_PRELOAD", f"{shim}:{BUILD / 'mpich' / 'libnbh-yield.so'}")]
    run(library, 2, [str(BUILD / library / "nbh-kernel"), "-i", str(path), "-o", str(prefix)], preload)
    results = pd.read_csv(f"{prefix}.results.csv")
    return results.groupby("id").seconds.median() * 1e9


def ratios(table):
    """The copy loops' speed over memcpy's on the transpose's blocks, per side and n (pack-bench lines)."""
    lines = []
    for line in table.splitlines():
        words = line.split()
        if words and words[0] == "transpose":
            n = words[1]
            side, memcpy, manual, tiled = words[3], float(words[5]), float(words[6]), float(words[7])
            lines.append(f"  transpose {n:8} {side:7} manual {manual / memcpy:5.2f}x  manual_tiled "
                         f"{tiled / memcpy:5.2f}x of memcpy")
    return "\n".join(lines)


def main():
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"packing: GB/s of data, median of 31 rounds of every way in turn, one process (memcpy: the same bytes contiguous; every "
          f"buffer written and aligned to a cache line, as the kernel's; load average {load})")
    for library in LIBRARIES:
        print(f"-- {library}")
        table = run(library, 1, [str(BUILD / library / "nbh-pack-bench")])
        print(table, end="")
        print(ratios(table))
    print(f"\nkernel time per repetition with the operation a no-op (PMPI shim), 2 processes, "
          f"median of {NREP}: a derived datatype against contiguous data of the same bytes")
    print(f"{'library':8} {'description':30} {'ns':>8} {'ratio':>7}")
    with tempfile.TemporaryDirectory() as tmp:
        for library in LIBRARIES:
            ns = overhead(library, Path(tmp))
            for i, e in enumerate(OVERHEAD):
                what = e["layout"] if e["layout"] == "contiguous" else \
                    f"tiled by {e.get('type_constructor', 'contiguous_resized')}"
                print(f"{library:8} {what:30} {ns[i + 1]:8.1f} {ns[i + 1] / ns[1]:7.3f}")


if __name__ == "__main__":
    main()
