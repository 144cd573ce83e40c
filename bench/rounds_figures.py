"""Figures for bench/bench-rounds (see there)."""
import csv
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "kernel"))
from kernel_runner import BUILD, LIBRARIES, launch_command  # noqa: E402

NPROCS = 4
TRIALS = 3
ROUNDS = (1, 10)
WARMUP = 1


def demo_input(directory):
    """The demo campaign's first run input (generated into DIRECTORY), as rows."""
    env = dict(subprocess.os.environ, NBH_WORK=str(directory / "work"))
    subprocess.run([str(ROOT / "nbhbench"), "generate", "demo", "--set", "aa=no"], env=env, check=True,
                   capture_output=True, text=True)
    path = next((directory / "work" / "demo" / "inputs").glob("*-r001.csv"))
    lines = [line for line in path.read_text().splitlines() if not line.startswith("#")]
    return list(csv.DictReader(lines))


def with_rounds(rows, rounds, path):
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for row in rows:
            writer.writerow(dict(row, blocks=rounds, warmup=WARMUP))


def one_run(library, path, prefix):
    """Seconds of the whole launch, and of its timed repetitions (the sum of the results' times)."""
    command, env = launch_command(library, NPROCS, [str(BUILD / library / "nbh-kernel"), "-i", str(path),
                                                    "-o", str(prefix)])
    t0 = time.perf_counter()
    subprocess.run(command, env=env, check=True, capture_output=True, text=True, timeout=600)
    wall = time.perf_counter() - t0
    with open(f"{prefix}.results.csv") as f:
        timed = sum(float(row["seconds"]) for row in csv.DictReader(f))
    return wall, timed


def main():
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        rows = demo_input(directory)
        print(f"the demo's {len(rows)} experiments, nrep {rows[0]['nrep']}, {NPROCS} processes, warmup {WARMUP}, "
              f"{TRIALS} trials interleaved (median)")
        print(f"{'library':10} {'rounds':>6} {'launch s':>9} {'timed s':>8} {'other s':>8} {'vs 1 round':>11}")
        for library in LIBRARIES:
            inputs = {}
            for rounds in ROUNDS:
                inputs[rounds] = directory / f"in-{rounds}.csv"
                with_rounds(rows, rounds, inputs[rounds])
            times = {rounds: [] for rounds in ROUNDS}
            for trial in range(TRIALS):
                for rounds in ROUNDS:
                    times[rounds].append(one_run(library, inputs[rounds], directory / f"{library}-{rounds}-{trial}"))
            base = statistics.median(w - t for w, t in times[1])
            for rounds in ROUNDS:
                wall = statistics.median(w for w, _ in times[rounds])
                timed = statistics.median(t for _, t in times[rounds])
                other = statistics.median(w - t for w, t in times[rounds])
                print(f"{library:10} {rounds:6d} {wall:9.2f} {timed:8.3f} {other:8.2f} {other - base:+10.2f}s")


if __name__ == "__main__":
    main()
