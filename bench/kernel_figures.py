"""Figures for bench/bench-kernel (see there)."""
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "kernel"))
from kernel_runner import BUILD, LIBRARIES, input_text, launch_command  # noqa: E402

# A standard input: the setups of the nbhcoll campaigns on three topologies.
STANDARD = [dict(id=i, op=op, topology=topology, ndim=ndim, nfin=0, radius=radius, order=order, reorder=0,
                 msize=msize, nrep=50, seed=1)
            for i, (op, topology, ndim, radius, order, msize) in enumerate(
                (op, t, n, r, o, m)
                for op in ["neighbor_allgather", "neighbor_alltoall"]
                for t, n, r, o in [("cart", 2, None, None), ("moore", 2, 1, "FMAJ"), ("vneum", 3, 1, "RAND")]
                for m in [256, 4096, 32768])]


def run(library, nprocs, argv):
    command, env = launch_command(library, nprocs, argv)
    t0 = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True, timeout=600)
    return done.stdout, time.perf_counter() - t0


def barrier_us(library, nprocs):
    out, _ = run(library, nprocs, [str(BUILD / library / "nbh-kernel"), "--barrier-report"])
    return float(out.split()[-1])


def overhead(library, nprocs, directory):
    path = directory / f"standard-{library}-{nprocs}.csv"
    path.write_text(input_text(STANDARD))
    kernel = str(BUILD / library / "nbh-kernel")
    tiny = directory / "tiny.csv"
    tiny.write_text(input_text(STANDARD[:1]))
    _, launch = run(library, nprocs, [kernel, "-i", str(tiny), "-o", str(directory / f"tiny-{library}-{nprocs}")])
    prefix = directory / f"out-{library}-{nprocs}"
    _, wall = run(library, nprocs, [kernel, "-i", str(path), "-o", str(prefix)])
    measured = pd.read_csv(f"{prefix}.results.csv")["seconds"].sum()
    barriers = 2 * sum(e["nrep"] for e in STANDARD) * barrier_us(library, nprocs) * 1e-6
    return wall, launch, measured, barriers


def main():
    print("kernel overhead: wall time of a run on the standard input (18 experiments x 50 reps)\n"
          "over the sum of its measured repetitions plus 2 barriers per repetition")
    print(f"{'library':8} {'procs':>5} {'wall_s':>8} {'launch_s':>9} {'measured_s':>10} {'barriers_s':>10} "
          f"{'ratio':>6} {'ratio_without_launch':>20}")
    with tempfile.TemporaryDirectory() as tmp:
        for library in LIBRARIES:
            for nprocs in (4, 9):
                wall, launch, measured, barriers = overhead(library, nprocs, Path(tmp))
                print(f"{library:8} {nprocs:5d} {wall:8.2f} {launch:9.2f} {measured:10.3f} {barriers:10.3f} "
                      f"{wall / (measured + barriers):6.2f} {(wall - launch) / (measured + barriers):20.2f}")
    print("\ndissemination barrier, mean of 2000 calls (slowest process)")
    for library in LIBRARIES:
        for nprocs in (4, 9):
            print(f"{library:8} {nprocs:5d} processes {barrier_us(library, nprocs):10.2f} us per barrier")
    print("\nbusy work calibrated to 100 us and 1 ms (median of 201 timings, single process)")
    for library in LIBRARIES:
        out, _ = run(library, 1, [str(BUILD / library / "nbh-kernel"), "--calibration-report"])
        for line in out.splitlines():
            print(f"{library:8} {line}")


if __name__ == "__main__":
    main()
