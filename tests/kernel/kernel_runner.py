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

from gen.envfile import read_environment, shell_places
from gen.jobscript import expand, launch_variables, launcher_words, preloads_without_spaces

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "build"
LIBRARIES = ["openmpi", "mpich"]
PARAMETERS = [row["name"] for row in csv.DictReader(open(ROOT / "registry" / "parameters.csv"))]


def launch_command(library, nprocs, argv, launch_env=()):
    """The command and environment that run `argv` on nprocs ranks, as the
    shipped environment env/local-LIBRARY launches the kernel."""
    environment = read_environment(f"local-{library}")
    places = {"root": str(ROOT), "build": str(BUILD)}
    variables = preloads_without_spaces(launch_variables(environment, {}, launch_env, places),
                                        BUILD / library / "nbh-kernel")
    words = launcher_words(environment, nprocs=nprocs, nodes=1, ppn=nprocs, variables=variables,
                           places=shell_places(ROOT, BUILD))
    process_env = dict(os.environ)
    process_env.update((name, expand(value, **places)) for name, value in environment.export)
    return [*words, *argv], process_env


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
    def start(cls, library, nprocs, experiments, directory, args, timeout=300, launch_env=()):
        directory.mkdir(parents=True, exist_ok=True)
        path = directory / "input.csv"
        if isinstance(experiments, bytes):
            path.write_bytes(experiments)
        else:
            path.write_text(input_text(experiments))
        prefix = directory / "out"
        kernel = BUILD / library / "nbh-kernel"
        command, env = launch_command(library, nprocs, [str(kernel), "-i", str(path), "-o", str(prefix), *args],
                                      launch_env)
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
