"""What the workflow tests share: the nbhbench command line with a private
work and archive folder (Bench), and readers of what it writes."""
import csv
import os
import pathlib
import subprocess
import time

from child_signals import default_sigint

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent

SLOW = HERE / "campaigns" / "slow"


class Bench:
    """Runs ./nbhbench with this test's NBH_WORK and NBH_ARCHIVES."""

    def __init__(self, tmp_path, extra_env=None, slurm=None):
        self.slurm = slurm
        self.work = tmp_path / "work"
        self.archives = tmp_path / "archives"
        self.env = dict(os.environ, NBH_WORK=str(self.work), NBH_ARCHIVES=str(self.archives),
                        NBH_POLL_SECONDS="0.5", **(extra_env or {}))

    def __call__(self, *args, timeout=300):
        return subprocess.run([str(ROOT / "nbhbench"), *map(str, args)], capture_output=True, text=True,
                              timeout=timeout, env=self.env)

    def start(self, *args):
        """./nbhbench ARGS started, to be interrupted: Ctrl-C (SIGINT) reaches
        it even where the tests' caller ignores it (a background job of a
        non-interactive shell, `bash -c 'make test &'`, passes SIG_IGN on)."""
        return subprocess.Popen([str(ROOT / "nbhbench"), *map(str, args)], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, env=self.env, preexec_fn=default_sigint)

    def ok(self, *args, timeout=300):
        result = self(*args, timeout=timeout)
        assert result.returncode == 0, f"nbhbench {' '.join(map(str, args))}: {result.stdout}{result.stderr}"
        return result

    def workspace(self, name):
        from gen.workspace import Workspace
        return Workspace(self.work / name)

    def status(self, name):
        """{run id: (state, 'done/total', attempts)} from nbhbench status."""
        lines = self.ok("status", name).stdout.splitlines()[2:]
        return {line.split()[0]: (line.split()[1], line.split()[2], int(line.split()[3])) for line in lines}

    def archive(self, name):
        result = self.ok("archive", name)
        return pathlib.Path(result.stdout.strip().splitlines()[-1]), result


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def complete_experiments(results, nrep):
    counts = {}
    for row in read_csv(results):
        counts[row["id"]] = counts.get(row["id"], 0) + 1
    assert all(n == nrep for n in counts.values()), f"a partial experiment in {results}"
    return set(counts)


def whole_rounds(results, nrep, blocks):
    """{(id, round): rows} of a results file with rounds; fails on a round
    with another number of rows than its share of nrep (kernel/rounds.c)."""
    rounds = {}
    for row in read_csv(results):
        rounds.setdefault((row["id"], int(row["round"])), []).append(row)
    for (_, r), rows in rounds.items():
        assert len(rows) == nrep // blocks + (r - 1 < nrep % blocks), f"a partial round in {results}"
    return rounds


def wait_until(condition, seconds, what):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    raise AssertionError(f"{what}: not within {seconds} s")


def build_shim(library, directory):
    """tests/workflow/pmpi_progress.c compiled with the library's mpicc."""
    shim = directory / f"libnbh-progress-{library}.so"
    subprocess.run([f"mpicc.{library}", "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror",
                    str(HERE / "pmpi_progress.c"), "-o", str(shim)], check=True, capture_output=True, timeout=120)
    return shim


def measure_progress_shim(directory, library):
    """The progress-shim campaign under LIBRARY with the PMPI tool that takes
    progress away (MPI_Ineighbor_alltoall completes inside the call,
    MPI_Start spins 400 us): generate, submit, archive; returns the archive.

    Its verdicts compare the two sides of every test round by round: this
    2-core VM's host changes its speed by several times within seconds
    (the same 1 MiB exchange at 425-542 us in runs 1-10, 1640-1829 us in
    runs 11-16 of one campaign), which a comparison of whole launches
    confounds with the 2x under test; the kernel's interleaved rounds
    measure both sides seconds apart, and the paired test compares them
    there, so one measurement is enough."""
    shim = build_shim(library, directory)
    bench = Bench(directory)
    bench.ok("generate", HERE / "campaigns" / "progress-shim", "--env", f"local-{library}",
             "--set", f"launch_env=LD_PRELOAD={shim}",
             "--set", "launch_env=NBH_SHIM_COMPLETE_INSIDE=1",
             "--set", "launch_env=NBH_SHIM_START_SPIN_US=400")
    bench.ok("submit", "progress-shim", "--wait", timeout=600)
    archive, _ = bench.archive("progress-shim")
    return archive
