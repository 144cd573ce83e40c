"""Figures for bench/bench-paired (see there)."""
import csv
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NBH = str(ROOT / "nbhbench")
LIBRARIES = ("openmpi", "mpich")
MSIZES = [64 * 2 ** k for k in range(8)]
TESTS = 3 * len(MSIZES)   # int <= byte per ndim and msize; a twin of each of the 2 x TESTS experiments

CAMPAIGN = """description = bench: int against byte, int slowed 1.2x by a PMPI tool, A/A twins of every experiment
deployments = 1x4
nrun = 10
nrep = 40
time_limit = 20:00
seed = {seed}
aa = yes
"""
EXPERIMENTS = f"""from gen.design import cross, levels

EXPERIMENTS = cross(
    levels(op="neighbor_alltoall", topology="cart", nfin=0),
    levels(ndim=[1, 2, 3]),
    levels(datatype=["int", "byte"]),
    levels(msize={MSIZES}),
)
"""
ASSESSMENT = """[planted]
parameter = datatype
varied = msize
int <= byte
"""


def nbhbench(env, *args, timeout=1800):
    done = subprocess.run([NBH, *map(str, args)], env=env, capture_output=True, text=True, timeout=timeout)
    if done.returncode not in (0, 3):
        raise SystemExit(f"nbhbench {' '.join(map(str, args))}: {done.stderr.strip()}")
    return done.stdout


class ChangingLoad:
    """Two busy processes switched on and off at random, every 1-5 s: a
    machine whose speed changes within seconds."""

    def __init__(self, seed):
        self.seed = random.Random(seed).random()

    def __enter__(self):
        self.process = subprocess.Popen([sys.executable, "-c", SWITCHER, str(self.seed)], start_new_session=True)
        return self

    def __exit__(self, *exc):
        os.killpg(self.process.pid, signal.SIGKILL)   # the switcher and its busy workers
        self.process.wait()


SWITCHER = """
import multiprocessing, random, sys, time
def spin():
    while True:
        pass
rng = random.Random(float(sys.argv[1]))
workers = []
while True:
    if workers:
        for w in workers:
            w.terminate()
        workers = []
    else:
        workers = [multiprocessing.Process(target=spin, daemon=True) for _ in range(2)]
        for w in workers:
            w.start()
    time.sleep(rng.uniform(1, 5))
"""


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def campaign(directory, library, seed):
    folder = directory / "planted-aa"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "campaign.conf").write_text(CAMPAIGN.format(seed=seed))
    (folder / "experiments.py").write_text(EXPERIMENTS)
    (folder / "assessment.conf").write_text(ASSESSMENT)
    env = dict(os.environ, NBH_WORK=str(directory / "work"), NBH_ARCHIVES=str(directory / "archives"))
    tool = ROOT / "build" / library / "libnbh-slowdown.so"
    nbhbench(env, "generate", folder, "--env", f"local-{library}", "--set", f"launch_env=LD_PRELOAD={tool}",
             "--set", "launch_env=NBH_SLOWDOWN_OP=neighbor_alltoall", "--set", "launch_env=NBH_SLOWDOWN_DATATYPE=int",
             "--set", f"launch_env=NBH_SLOWDOWN_MSIZES={','.join(map(str, MSIZES))}",
             "--set", "launch_env=NBH_SLOWDOWN_FACTOR=1.2")
    t0 = time.time()
    with ChangingLoad(seed):
        nbhbench(env, "submit", "planted-aa", "--wait")
    measured = time.time() - t0
    archive = nbhbench(env, "archive", "planted-aa").strip().splitlines()[-1]
    return env, archive, measured


def verdicts(env, archive, out, *options):
    nbhbench(env, "analyze", archive, "--out", out, "--no-plots", *options)
    tests = rows(Path(out) / "tests.csv")
    planted = [t for t in tests if t["tag"] != "AA"]
    twins = [t for t in tests if t["tag"] == "AA"]
    return {"planted": len(planted), "found": sum(t["violated"] == "TRUE" for t in planted),
            "planted_open": sum(t["decision"] == "open" for t in planted),
            "twins": len(twins), "false": sum(t["violated"] == "TRUE" for t in twins),
            "twins_holds": sum(t["decision"] == "holds" for t in twins),
            "ratio": sorted(float(t["ratio"]) for t in planted)}


def demo_open(directory, library):
    env = dict(os.environ, NBH_WORK=str(directory / "demo-work"), NBH_ARCHIVES=str(directory / "demo-archives"))
    nbhbench(env, "generate", "demo", "--env", f"local-{library}")
    nbhbench(env, "submit", "demo", "--wait")
    archive = nbhbench(env, "archive", "demo").strip().splitlines()[-1]
    out = directory / f"demo-{library}"
    nbhbench(env, "analyze", archive, "--out", out, "--no-plots", "--hold-ratio", "1.05")
    tests = rows(out / "tests.csv")
    return sum(t["decision"] == "open" for t in tests), len(tests)


def main():
    print(f"planted: MPI_INT 1.2x slower (waits 0.2 x each call's time, yielding the core), {TESTS} int <= byte "
          f"tests at 1x4, nrun 10, nrep 40 (10 rounds of 4), A/A twins of all {2 * TESTS} experiments; a load "
          "switching 2 busy processes on and off every 1-5 s")
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        for k, library in enumerate(LIBRARIES):
            env, archive, seconds = campaign(directory / library, library, 25 + k)
            for method in ("paired", "study"):
                v = verdicts(env, archive, directory / library / f"analysis-{method}", "--method", method)
                r = v["ratio"]
                print(f"{library:8} {method:7} planted found {v['found']}/{v['planted']} "
                      f"({100 * v['found'] / v['planted']:.0f} %), open {v['planted_open']}, ratios "
                      f"{r[0]:.2f}-{r[-1]:.2f} (median {r[len(r) // 2]:.2f}); A/A false violations "
                      f"{v['false']}/{v['twins']} ({100 * v['false'] / v['twins']:.1f} %; nominal <= 0.2 %), "
                      f"twins holding {v['twins_holds']}/{v['twins']}  [measured in {seconds:.0f} s]")
            shown, total = demo_open(directory / library, library)
            print(f"{library:8} the demo (1x4, nrun 10, paired) at hold ratio 1.05: {shown} of {total} tests open "
                  f"({100 * shown / total:.0f} %)")


if __name__ == "__main__":
    main()
