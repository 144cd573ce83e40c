"""Figures for bench/bench-sync (see there)."""
import json
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

from gen import registry  # noqa: E402
from gen.experiments import complete_all, load_design  # noqa: E402


def run(library, nprocs, argv):
    command, env = launch_command(library, nprocs, argv)
    t0 = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True, timeout=900)
    return done.stdout, time.perf_counter() - t0


def skew(library, nprocs):
    """nbh-kernel --sync-report's line as a dict."""
    out, _ = run(library, nprocs, [str(BUILD / library / "nbh-kernel"), "--sync-report"])
    words = out.split()
    return {"barrier": (float(words[4]), float(words[6])), "clock": (float(words[9]), float(words[11])),
            "late_percent": float(words[13]), "estimate_ms": float(words[15])}


def demo_experiments(sync, nrep=30):
    """The demo campaign's experiments as a kernel input, every one started with SYNC."""
    design = ROOT / "campaigns" / "demo" / "experiments.py"
    rows = complete_all(load_design(design), design)
    return [dict(row, nrep=nrep, seed=1, sync=sync) for row in rows if registry.load().operations[row["op"]]["moves_data"] == "1"]


def campaign_cost(library, nprocs, directory):
    """Wall time of the demo's experiments started at the barrier and with the
    clock, and what the clock starts cost (preparation.csv sync_seconds)."""
    out = {}
    for sync in ("barrier", "clock"):
        path = directory / f"demo-{library}-{nprocs}-{sync}.csv"
        path.write_text(input_text(demo_experiments(sync)))
        prefix = directory / f"demo-{library}-{nprocs}-{sync}"
        _, wall = run(library, nprocs, [str(BUILD / library / "nbh-kernel"), "-i", str(path), "-o", str(prefix)])
        out[sync] = wall
        if sync == "clock":
            prep = pd.read_csv(f"{prefix}.preparation.csv")
            out["sync_s"] = prep["sync_seconds"].sum()
            out["sync_median_ms"] = prep["sync_seconds"].median() * 1e3
            out["invalid"] = int(prep["invalid_reps"].sum())
            out["experiments"] = len(prep)
            out["skew_us"] = prep["start_skew_seconds"].median() * 1e6
            prov = json.loads(Path(f"{prefix}.prov.json").read_text())
            out["reps"] = prov["experiments"] * 30
    return out


def main():
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"start skew: per start the latest minus the earliest process on the global clock, over 1000 starts "
          f"(us; the clock's over the starts no process reached late, late_% the others, which the kernel "
          f"repeats; load average {load})")
    print(f"{'library':8} {'procs':>5} {'barrier_median':>14} {'barrier_p95':>11} {'clock_median':>12} "
          f"{'clock_p95':>9} {'late_%':>6} {'estimate_ms':>11}")
    for library in LIBRARIES:
        for nprocs in (4, 8):
            s = skew(library, nprocs)
            print(f"{library:8} {nprocs:5d} {s['barrier'][0]:14.2f} {s['barrier'][1]:11.2f} {s['clock'][0]:12.2f} "
                  f"{s['clock'][1]:9.2f} {s['late_percent']:6.1f} {s['estimate_ms']:11.3f}")
    print("\nthe clock start's cost on the demo campaign's experiments (nrep 30): sync_s = estimating the clock and "
          "timing the window, summed over the experiments (preparation.csv); wall times of the same input started "
          "at the barrier and with the clock")
    print(f"{'library':8} {'procs':>5} {'experiments':>11} {'sync_median_ms':>14} {'sync_s':>7} {'barrier_wall_s':>14} "
          f"{'clock_wall_s':>12} {'sync_share':>10} {'invalid_reps':>12} {'skew_median_us':>14}")
    with tempfile.TemporaryDirectory() as tmp:
        for library in LIBRARIES:
            for nprocs in (4, 8):
                c = campaign_cost(library, nprocs, Path(tmp))
                print(f"{library:8} {nprocs:5d} {c['experiments']:11d} {c['sync_median_ms']:14.3f} {c['sync_s']:7.3f} "
                      f"{c['barrier']:14.2f} {c['clock']:12.2f} {100 * c['sync_s'] / c['clock']:9.1f}% "
                      f"{c['invalid']:12d} {c['skew_us']:14.2f}")


if __name__ == "__main__":
    main()
