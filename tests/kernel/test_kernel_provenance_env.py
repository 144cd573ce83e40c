"""Provenance beyond MPI_T (SPEC 7.3): every MPI-related environment
variable the processes had, the library's version string, and library
parameters MPI_T cannot see ("set, not verifiable"). Real mpirun of Debian's
Open MPI and MPICH."""
import json

from test_kernel_outputs import experiment

VERSION_STRING = {"openmpi": "Open MPI v4.1", "mpich": "MPICH Version:"}

# One variable of each family the kernel records; none changes what the
# libraries do (unknown names), so both run as always.
RECORDED = {"OMPI_MCA_nbh_probe": "1", "PRTE_MCA_nbh_probe": "2", "PMIX_MCA_nbh_probe": "3",
            "MPIR_CVAR_NBH_PROBE": "4", "I_MPI_NBH_PROBE": "5", "FI_NBH_PROBE": "6",
            "UCX_NBH_PROBE": "7", "HYDRA_NBH_PROBE": "8"}


def provenance(run):
    return json.loads(run.file("prov.json").read_text())


def test_every_mpi_related_variable_and_the_version_are_recorded(kernel, library, monkeypatch):
    for name, value in RECORDED.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("NBH_UNRELATED_PATHLIKE", "x")
    monkeypatch.setenv("OTHER_NBH_PROBE", "not MPI")
    run = kernel(library, 2, [experiment(1)])
    assert run.returncode == 0, run.stderr
    prov = provenance(run)
    environment = prov["environment"]
    assert {k: environment.get(k) for k in RECORDED} == RECORDED
    assert "OTHER_NBH_PROBE" not in environment
    assert not [k for k in environment if k.startswith(("HYDRA_BSTRAP_", "I_MPI_INFO_", "OMPI_MCA_orte_"))], \
        "the launcher's own variables are not the user's settings"
    assert prov["library"] == library
    assert prov["library_version"].startswith(VERSION_STRING[library])


def test_an_env_only_parameter_runs_and_is_set_not_verifiable(kernel, library, monkeypatch):
    """Intel MPI's I_MPI_ADJUST_* are no MPI_T variables: the kernel can only
    see that the processes got them."""
    missing = kernel(library, 2, [experiment(1)], "--expect-env", "I_MPI_ADJUST_ALLTOALL=2")
    assert missing.returncode == 2
    assert ("nbh-kernel: library parameter 'I_MPI_ADJUST_ALLTOALL' is not set in the processes' environment, "
            "not '2' as set (was it passed to the processes?)") in missing.stderr.splitlines()
    assert not missing.file("results.csv").exists(), "nothing is measured"

    monkeypatch.setenv("I_MPI_ADJUST_ALLTOALL", "2")
    run = kernel(library, 2, [experiment(1)], "--expect-env", "I_MPI_ADJUST_ALLTOALL=2")
    assert run.returncode == 0, run.stderr
    assert provenance(run)["library_parameters"] == [
        {"name": "I_MPI_ADJUST_ALLTOALL", "set": "2", "in_force": "", "check": "set, not verifiable",
         "why": "not an MPI_T variable (env_only)"}]
    assert provenance(run)["environment"]["I_MPI_ADJUST_ALLTOALL"] == "2"


def test_expect_env_needs_name_and_value(kernel, library):
    run = kernel(library, 2, [experiment(1)], "--expect-env", "I_MPI_ADJUST_ALLTOALL")
    assert run.returncode == 2
    assert "nbh-kernel: --expect-env: 'I_MPI_ADJUST_ALLTOALL' is not NAME=VALUE" in run.stderr.splitlines()


def test_a_cvar_mpi_t_reads_back_empty_is_set_not_verifiable(kernel, monkeypatch):
    """MPICH reads MPIR_CVAR_CH4_NETMOD back empty whatever was set: not an
    error when the processes have it, still one when they do not."""
    lost = kernel("mpich", 2, [experiment(1)], "--expect-cvar", "MPIR_CVAR_CH4_NETMOD=ucx")
    assert lost.returncode == 2
    assert "library parameter 'MPIR_CVAR_CH4_NETMOD' is '' in force, not 'ucx'" in lost.stderr
    monkeypatch.setenv("MPIR_CVAR_CH4_NETMOD", "ucx")
    run = kernel("mpich", 2, [experiment(1)], "--expect-cvar", "MPIR_CVAR_CH4_NETMOD=ucx")
    assert run.returncode == 0, run.stderr
    assert provenance(run)["library_parameters"] == [
        {"name": "MPIR_CVAR_CH4_NETMOD", "set": "ucx", "in_force": "", "check": "set, not verifiable",
         "why": "MPI_T reads it back empty"}]
