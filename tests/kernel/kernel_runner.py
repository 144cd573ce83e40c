"""Runs the real nbh-kernel under the real mpirun of Open MPI or MPICH, as
root and with more processes than cores (ENVIRONMENT.md), and reads what it
wrote."""
import csv
import io
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
LIBRARIES = ["openmpi", "mpich"]
PARAMETERS = [row["name"] for row in csv.DictReader(open(ROOT / "registry" / "parameters.csv"))]


def launch_command(library, nprocs, argv):
    """The mpirun command and environment that run `argv` on nprocs ranks."""
    env = dict(os.environ)
    if library == "openmpi":
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
                   OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1",
                   OMPI_MCA_pml="ob1", OMPI_MCA_btl_vader_single_copy_mechanism="none")
        return ["mpirun.openmpi", "-np", str(nprocs), *argv], env
    preload = str(BUILD / "mpich" / "libnbh-yield.so")
    return ["mpirun.mpich", "-np", str(nprocs), "-genv", "LD_PRELOAD", preload, *argv], env


def input_text(experiments):
    """A kernel input file from dicts (missing parameters left empty), or text as is."""
    if isinstance(experiments, str):
        return experiments
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=PARAMETERS, lineterminator="\n")
    writer.writeheader()
    for e in experiments:
        writer.writerow({k: ("" if v is None else v) for k, v in e.items()})
    return out.getvalue()


@dataclass
class KernelRun:
    library: str
    nprocs: int
    prefix: Path
    returncode: int
    stdout: str
    stderr: str

    @classmethod
    def start(cls, library, nprocs, experiments, directory, args, timeout=300):
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "input.csv"
        if isinstance(experiments, bytes):
            path.write_bytes(experiments)
        else:
            path.write_text(input_text(experiments))
        prefix = directory / "out"
        kernel = BUILD / library / "nbh-kernel"
        command, env = launch_command(library, nprocs, [str(kernel), "-i", str(path), "-o", str(prefix), *args])
        done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
        return cls(library, nprocs, prefix, done.returncode, done.stdout, done.stderr)

    def file(self, suffix):
        return Path(f"{self.prefix}.{suffix}")

    def table(self, suffix):
        return pd.read_csv(self.file(suffix), keep_default_na=False)

    @property
    def results(self):
        return self.table("results.csv")

    @property
    def findings(self):
        return self.table("findings.csv")

    @property
    def lists(self):
        return self.table("lists.csv")
