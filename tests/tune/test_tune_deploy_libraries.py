"""The files `nbhbench tune` writes (tune/deploy.py), loaded into the real
libraries: Open MPI's parameter file and MPICH's CVAR file set what they
say, as MPI_T reports it in force (build/LIBRARY/nbh-cvars); Open MPI reads
the coll tuned rules file as written (a rule that picks two_proc for 4
processes makes MPI_Alltoall fail there, the rule tune writes runs)."""
import subprocess

import pytest

from gen.envfile import read_environment
from gen.registry import ROOT
from gen.workspace import build_root
from tune import deploy, space

INFO = {"build": str(build_root()), "root": str(ROOT)}
PROGRAM = r"""
#include <mpi.h>
static char s[4 * 65536], r[4 * 65536];
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Alltoall(s, 8192, MPI_BYTE, r, 8192, MPI_BYTE, MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"""


def in_force(library, monkeypatch, **variables):
    for name, value in variables.items():
        monkeypatch.setenv(name, value)
    return space.list_cvars(read_environment(f"local-{library}"), INFO)


def test_open_mpi_takes_the_parameter_file(tmp_path, monkeypatch):
    deploy.write(tmp_path, "openmpi", {"coll_tuned_use_dynamic_rules": "true", "coll_tuned_alltoall_algorithm": "pairwise"},
                 "test", nprocs=4, from_bytes=1024,
                 choices={"coll_tuned_alltoall_algorithm": "0:ignore;1:linear;2:pairwise"})
    before = in_force("openmpi", monkeypatch)
    assert before["coll_tuned_alltoall_algorithm"]["value"] == "ignore"
    after = in_force("openmpi", monkeypatch, OMPI_MCA_mca_base_param_files=str(tmp_path / "mca-params.conf"))
    assert after["coll_tuned_alltoall_algorithm"]["value"] == "pairwise"
    assert after["coll_tuned_use_dynamic_rules"]["value"] == "true"
    rules = in_force("openmpi", monkeypatch, OMPI_MCA_mca_base_param_files=str(tmp_path / "mca-params-rules.conf"))
    assert rules["coll_tuned_dynamic_rules_filename"]["value"] == str(tmp_path / "coll-tuned-rules.conf")
    assert rules["coll_tuned_use_dynamic_rules"]["value"] == "true"


def alltoall_with_rules(tmp_path, algorithm):
    """MPI_Alltoall of 8 KiB per process on 4 processes under a rules file
    from tune's writer picking ALGORITHM there: its exit code."""
    program = tmp_path / "alltoall"
    (tmp_path / "alltoall.c").write_text(PROGRAM)
    subprocess.run(["mpicc.openmpi", str(tmp_path / "alltoall.c"), "-o", str(program)], check=True, timeout=120)
    rules = tmp_path / f"rules-{algorithm}.conf"
    rules.write_text(deploy.rules_text("alltoall", algorithm, 4, 1024, "test"))
    env = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1", "OMPI_MCA_rmaps_base_oversubscribe": "1",
           "OMPI_MCA_pml": "ob1", "OMPI_MCA_mpi_yield_when_idle": "1", "OMPI_MCA_coll_tuned_use_dynamic_rules": "1",
           "OMPI_MCA_coll_tuned_dynamic_rules_filename": str(rules), "PATH": "/usr/bin:/bin"}
    return subprocess.run(["mpirun.openmpi", "-np", "4", str(program)], capture_output=True, text=True, env=env,
                          timeout=120).returncode


def test_open_mpi_reads_the_rules_file_as_written(tmp_path):
    assert alltoall_with_rules(tmp_path, 2) == 0, "pairwise at 4 processes"
    assert alltoall_with_rules(tmp_path, 5) != 0, "two_proc at 4 processes: the rule was read and applied"


@pytest.mark.parametrize("value", ["pairwise", "brucks"])
def test_mpich_takes_the_cvar_file(tmp_path, monkeypatch, value):
    deploy.write(tmp_path, "mpich", {"MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM": value}, "test")
    exports = dict(line.removeprefix("export ").split("=", 1) for line in (tmp_path / "cvars.env").read_text().splitlines()
                   if line.startswith("export "))
    found = in_force("mpich", monkeypatch, **exports)["MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM"]
    assert int(found["value"]) == space.choices(found).index(value), "MPICH reports the choice by its number"
