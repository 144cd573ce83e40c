"""Figures for bench/bench-sync (see there)."""
import json
import statistics
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

NREP = 30
TRIALS = 3  # each cost figure: the median of this many launches, barrier and clock alternating
# The rounds generate gives nrep 30 by default (blocks: nrep / 4, at most 10; one warm-up repetition).
ROUNDS = dict(blocks=7, warmup=1)


def run(library, nprocs, argv):
    command, env = launch_command(library, nprocs, argv)
    t0 = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True, timeout=900)
    return done.stdout, time.perf_counter() - t0


def skew(library, nprocs):
    """nbh-kernel --sync-report's line as a dict: name -> value, or (median, p95)."""
    out, _ = run(library, nprocs, [str(BUILD / library / "nbh-kernel"), "--sync-report"])
    words, values = out.split(), {}
    i = 0
    while i < len(words) - 1:
        if words[i + 1] == "median":
            values[words[i]] = (float(words[i + 2]), float(words[i + 4]))
            i += 5
        else:
            values[words[i]] = float(words[i + 1])
            i += 2
    return values


def demo_experiments(sync, nrep=NREP, **extra):
    """The demo campaign's experiments as a kernel input, every one started with SYNC."""
    design = ROOT / "campaigns" / "demo" / "experiments.py"
    rows = complete_all(load_design(design), design)
    return [dict(row, nrep=nrep, seed=1, sync=sync, **extra) for row in rows
            if registry.load().operations[row["op"]]["moves_data"] == "1"]


# The clock starts compared: as the kernel makes them (estimated once per run,
# resynchronised when the model's bound says so, the skew measured after
# each round of the run) and as before issue 37 (--sync-each-experiment: the
# model refitted and the skew measured around every experiment round).
CLOCKS = {"clock": [], "before": ["--sync-each-experiment"]}


def campaign_cost(library, nprocs, directory, **extra):
    """Wall time of the demo's experiments started at the barrier and with the
    clock, now and before (TRIALS launches each, interleaved), and what the
    clock starts cost (preparation.csv sync_seconds) and achieved: medians
    over the launches."""
    trials = []
    for trial in range(TRIALS):
        out = {}
        for way in ("barrier", *CLOCKS):
            sync = "barrier" if way == "barrier" else "clock"
            name = f"demo-{library}-{nprocs}-{way}-{'rounds' if extra else 'one'}-{trial}"
            path = directory / f"{name}.csv"
            path.write_text(input_text(demo_experiments(sync, **extra)))
            prefix = directory / name
            _, wall = run(library, nprocs, [str(BUILD / library / "nbh-kernel"), "-i", str(path), "-o", str(prefix),
                                            *CLOCKS.get(way, [])])
            out[f"{way}_wall"] = wall
            if sync == "clock":
                prep = pd.read_csv(f"{prefix}.preparation.csv")
                out[f"{way}_sync_s"] = prep["sync_seconds"].sum()
                out[f"{way}_invalid"] = int(prep["invalid_reps"].sum())
                out["experiments"] = prep["id"].nunique()
                out[f"{way}_skew_us"] = prep["start_skew_seconds"].median() * 1e6
                out[f"{way}_measured_us"] = prep["measured_skew_seconds"].median() * 1e6
                out[f"{way}_bound_us"] = prep["skew_bound_seconds"].median() * 1e6
                out[f"{way}_share"] = 100 * out[f"{way}_sync_s"] / wall
        trials.append(out)
    return {key: statistics.median(t[key] for t in trials) for key in trials[0]}


def main():
    load = Path("/proc/loadavg").read_text().split()[0] if Path("/proc/loadavg").exists() else "?"
    print(f"start skew: per start the latest minus the earliest process, measured after the starts with fresh "
          f"clock offsets against each process's recorded local start times (us; 1000 barrier exits, 1000 clock "
          f"starts 100 us apart, the clock's over the starts no process reached late, late_% the others, which "
          f"the kernel repeats); model_lateness: what the clock's own model saw (the latest lateness per start); "
          f"resolution: the fresh offsets' error bound; estimate_ms: a resynchronisation (1 new fitpoint), "
          f"slowest process, median of 5; growth: the model's error growth, us per s (load average {load})")
    print(f"{'library':8} {'procs':>5} {'barrier_median':>14} {'barrier_p95':>11} {'clock_median':>12} "
          f"{'clock_p95':>9} {'late_%':>6} {'model_lateness':>14} {'resolution':>10} {'estimate_ms':>11} "
          f"{'growth_us/s':>11}")
    for library in LIBRARIES:
        for nprocs in (4, 8):
            s = skew(library, nprocs)
            print(f"{library:8} {nprocs:5d} {s['barrier_skew_us'][0]:14.2f} {s['barrier_skew_us'][1]:11.2f} "
                  f"{s['clock_skew_us'][0]:12.2f} {s['clock_skew_us'][1]:9.2f} {s['clock_late_percent']:6.1f} "
                  f"{s['model_lateness_us'][0]:14.2f} {s['resolution_us']:10.2f} {s['clock_estimate_ms']:11.3f} "
                  f"{s['model_error_growth_us_per_s']:11.3f}")
    print(f"\nthe clock start's cost on the demo campaign's experiments (nrep {NREP}; one round, and in the {ROUNDS['blocks']} "
          f"rounds with {ROUNDS['warmup']} warm-up repetition generate gives nrep {NREP}), now (estimated once per run, "
          f"resynchronised when the model's bound says so, the skew measured after each round of the run) and before "
          f"issue 37 (--sync-each-experiment: around every experiment round), side by side: sync_s = estimating and "
          f"resynchronising the clock, timing the window (round 1) and measuring the skew, summed over the run "
          f"(preparation.csv sync_seconds, slowest process), and its share of the clock-started run's wall time; "
          f"wall times of the same input started at the barrier and with the clock; the measured start skew and its "
          f"resolution (medians over the experiment rounds), the model's own lateness, the repetitions left out; "
          f"medians of {TRIALS} launches each, interleaved (load average {load})")
    print(f"{'library':8} {'procs':>5} {'rounds':>6} {'exps':>4} {'share_now':>9} {'share_before':>12} "
          f"{'sync_s_now':>10} {'sync_s_before':>13} {'barrier_wall_s':>14} {'wall_now_s':>10} {'wall_before_s':>13} "
          f"{'skew_now_us':>11} {'skew_before_us':>14} {'resolution_now_us':>17} {'resolution_before_us':>20} "
          f"{'model_lateness_now_us':>21} {'invalid_now':>11} {'invalid_before':>14}")
    with tempfile.TemporaryDirectory() as tmp:
        for library in LIBRARIES:
            for nprocs in (4, 8):
                for extra in ({}, ROUNDS):
                    c = campaign_cost(library, nprocs, Path(tmp), **extra)
                    print(f"{library:8} {nprocs:5d} {extra.get('blocks', 1):6d} {int(c['experiments']):4d} "
                          f"{c['clock_share']:8.1f}% {c['before_share']:11.1f}% {c['clock_sync_s']:10.3f} "
                          f"{c['before_sync_s']:13.3f} {c['barrier_wall']:14.2f} {c['clock_wall']:10.2f} "
                          f"{c['before_wall']:13.2f} {c['clock_measured_us']:11.2f} {c['before_measured_us']:14.2f} "
                          f"{c['clock_bound_us']:17.2f} {c['before_bound_us']:20.2f} {c['clock_skew_us']:21.2f} "
                          f"{int(c['clock_invalid']):11d} {int(c['before_invalid']):14d}")
    print(f"(load average at the end {Path('/proc/loadavg').read_text().split()[0]})")


if __name__ == "__main__":
    main()
