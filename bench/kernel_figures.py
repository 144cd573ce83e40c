"""Figures for bench/bench-kernel (see there)."""
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "kernel"))
from kernel_runner import BUILD, LIBRARIES, input_text, launch_command  # noqa: E402

# Experiments of the nbhcoll campaigns, small to large, each timed for
# about SECONDS of repetitions: the kernel's own cost is measured over the
# whole repetition loop, not guessed from a run's wall time (which holds
# the launch, MPI_Init and the topology setup).
EXPERIMENTS = [dict(id=1, op="neighbor_alltoall", topology="cart", ndim=2, nfin=0, reorder=0, msize=256, seed=1),
               dict(id=2, op="neighbor_allgather", topology="moore", ndim=2, nfin=0, radius=1, order="FMAJ",
                    reorder=0, msize=4096, seed=1),
               dict(id=3, op="neighbor_alltoall", topology="vneum", ndim=3, nfin=0, radius=1, order="RAND",
                    reorder=0, msize=32768, seed=1)]
SECONDS = 3.0
PROBE_NREP = 100


def run(library, nprocs, argv):
    command, env = launch_command(library, nprocs, argv)
    t0 = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True, timeout=600)
    return done.stdout, time.perf_counter() - t0


def barrier_us(library, nprocs):
    out, _ = run(library, nprocs, [str(BUILD / library / "nbh-kernel"), "--barrier-report"])
    return float(out.split()[-1])


def loop_report(library, nprocs, experiments, prefix):
    """{id: the kernel's --loop-report line as a dict} of a run of EXPERIMENTS."""
    path = Path(f"{prefix}.input.csv")
    path.write_text(input_text(experiments))
    out, _ = run(library, nprocs, [str(BUILD / library / "nbh-kernel"), "-i", str(path), "-o", str(prefix),
                                   "--loop-report"])
    lines = [line.split()[1:] for line in out.splitlines() if line.startswith("loop ")]
    reports = [dict(zip(words[::2], map(float, words[1::2]))) for words in lines]
    return {int(r["id"]): r for r in reports}


def loop_costs(library, nprocs, directory, rounds=4):
    """A short run tells how long a repetition takes; then each experiment
    runs for about SECONDS, again with more repetitions where a busy
    machine made the guess too short (under half of SECONDS)."""
    nrep_of = {e["id"]: PROBE_NREP for e in EXPERIMENTS}
    costs = {}
    for round_ in range(rounds):
        todo = [dict(e, nrep=nrep_of[e["id"]]) for e in EXPERIMENTS if e["id"] not in costs]
        if not todo:
            break
        for i, r in loop_report(library, nprocs, todo, directory / f"loop-{library}-{nprocs}-{round_}").items():
            if round_ > 0 and (r["loop_s"] >= SECONDS / 2 or round_ == rounds - 1):
                costs[i] = r
            else:
                nrep_of[i] = max(PROBE_NREP, min(10 ** 6, math.ceil(SECONDS * r["nrep"] / r["loop_s"])))
    return costs


def describe(experiment):
    return f"{experiment['op']} {experiment['topology']} {experiment['msize']} B"


def main():
    print(f"kernel's own cost per repetition: time stamps around the whole repetition loop on every process,\n"
          f"minus that process's timed sections (the two barriers, the bookkeeping), about {SECONDS:g} s of\n"
          "repetitions per experiment (nbh-kernel --loop-report); own_us: the slowest process, spread_us: its\n"
          "difference to the fastest")
    print(f"{'library':8} {'procs':>5} {'experiment':38} {'nrep':>7} {'loop_s':>7} {'timed_us':>9} "
          f"{'own_us':>8} {'spread_us':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for library in LIBRARIES:
            for nprocs in (4, 9):
                costs = loop_costs(library, nprocs, Path(tmp))
                for experiment in EXPERIMENTS:
                    r = costs[experiment["id"]]
                    print(f"{library:8} {nprocs:5d} {describe(experiment):38} {int(r['nrep']):7d} "
                          f"{r['loop_s']:7.2f} {r['timed_us_per_rep']:9.1f} {r['own_us_per_rep']:8.1f} "
                          f"{r['own_us_per_rep'] - r['own_us_per_rep_min']:9.1f}")
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
