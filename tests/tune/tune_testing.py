"""What the tune tests share: nbhbench with private work, archive, analysis
and tune folders (Bench), and the planted-violation shim
(pmpi_algorithm.c) built for a library."""
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]
HERE = pathlib.Path(__file__).resolve().parent
GL8 = HERE / "campaigns" / "gl8"


class Bench:
    def __init__(self, tmp_path):
        self.tmp = tmp_path
        self.env = dict(os.environ, NBH_WORK=str(tmp_path / "work"), NBH_ARCHIVES=str(tmp_path / "archives"),
                        NBH_TUNES=str(tmp_path / "tunes"), NBH_ANALYSES=str(tmp_path / "analyses"))

    def __call__(self, *args, timeout=900):
        return subprocess.run([str(ROOT / "nbhbench"), *map(str, args)], capture_output=True, text=True,
                              timeout=timeout, env=self.env, stdin=subprocess.DEVNULL)

    def ok(self, *args, timeout=900):
        result = self(*args, timeout=timeout)
        assert result.returncode == 0, f"nbhbench {' '.join(map(str, args))}: {result.stdout}{result.stderr}"
        return result

    def tune_folder(self, name):
        return self.tmp / "tunes" / name


def build_shim(library, directory):
    shim = directory / f"libnbh-algorithm-{library}.so"
    subprocess.run([f"mpicc.{library}", "-shared", "-fPIC", "-O2", "-Wall", "-Wextra", "-Werror",
                    str(HERE / "pmpi_algorithm.c"), "-o", str(shim)], check=True, capture_output=True, timeout=120)
    return shim


def planted_analysis(bench, shim, fast_variable, fast_value, slow_us=20000, neighbor_us=2000):
    """The gl8 campaign measured under Open MPI with the shim: MPI_Alltoall
    SLOW_US slower unless FAST_VARIABLE=FAST_VALUE, MPI_Neighbor_alltoall
    NEIGHBOR_US slower; analysed. Returns the analysis folder."""
    items = [f"launch_env=LD_PRELOAD={shim}", f"launch_env=NBH_TUNE_SLOW_US={slow_us}",
             f"launch_env=NBH_TUNE_NEIGHBOR_US={neighbor_us}", f"launch_env=NBH_TUNE_FAST_VARIABLE={fast_variable}",
             f"launch_env=NBH_TUNE_FAST_VALUE={fast_value}"]
    args = ["generate", GL8, "--env", "local-openmpi"]
    for item in items:
        args += ["--set", item]
    bench.ok(*args)
    bench.ok("submit", "gl8")
    archive = bench.ok("archive", "gl8").stdout.strip().splitlines()[-1]
    out = bench.tmp / "analysis"
    bench.ok("analyze", archive, "--out", out, "--no-plots")
    return out
