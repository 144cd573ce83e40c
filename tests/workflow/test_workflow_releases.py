"""The current releases installed from pip wheels (nbhbench install-mpi:
Open MPI 5, MPICH 5, Intel MPI; make test installs them into .mpi/), each
through the five steps with its shipped local environment, as root and
with more processes than cores. A release that is not installed fails
here: CI installs all three."""
import json
import shlex

import pytest

from workflow_testing import HERE, ROOT, read_csv

RUN = "1x4-default-r001"
VERSION = {"openmpi5": "Open MPI v5.0.", "mpich5": "MPICH Version: 5.0.", "intelmpi": "Intel(R) MPI Library 2021."}


def require_release(library):
    assert (ROOT / ".mpi" / library / ".nbh-installed").is_file(), \
        f"{library} is not installed: run ./nbhbench install-mpi {library} (make test does)"
    assert (ROOT / "build" / library / "nbh-kernel").is_file(), f"build/{library}/nbh-kernel: run make"


def launched_with(job, *words):
    """Whether a line of the job script JOB starts with WORDS once the shell
    has split it (the project's path is quoted where it holds a space)."""
    for line in job.read_text().splitlines():
        try:
            if shlex.split(line, comments=True)[:len(words)] == list(words):
                return True
        except ValueError:  # not a line of shell words (if ...; then)
            continue
    return False


def five_steps(bench, tmp_path, campaign, env, *settings):
    """generate, submit, archive, analyze (the kernel is built by make);
    returns the archive and the analysis folder."""
    bench.ok("generate", campaign, "--env", env, *[a for s in settings for a in ("--set", s)])
    name = campaign if isinstance(campaign, str) else campaign.name
    submitted = bench.ok("submit", name)
    assert "runs: " in submitted.stdout and "done" in submitted.stdout.splitlines()[-1]
    archive, _ = bench.archive(name)
    out = tmp_path / "analysis"
    bench.ok("analyze", archive, "--out", out, "--no-plots")
    assert (out / "report.html").is_file() and (out / "summary.csv").is_file()
    return archive, out


@pytest.mark.parametrize("library", ["openmpi5", "mpich5"])
def test_release_runs_the_demo_through_five_steps(bench, tmp_path, library):
    require_release(library)
    archive, _ = five_steps(bench, tmp_path, "demo", f"local-{library}", "nrun=2", "nrep=3", "msize=64")
    runs = read_csv(archive / "runs.csv")
    assert {r["state"] for r in runs} == {"done"} and {r["library"] for r in runs} == {library}
    assert runs[0]["library_version"].startswith(VERSION[library])
    prov = json.loads((archive / f"results/{RUN}.prov.json").read_text())
    assert prov["library"] == library and " ".join(prov["library_version"].split()).startswith(VERSION[library])
    environment = prov["environment"]
    if library == "openmpi5":
        assert environment["OMPI_MCA_mpi_yield_when_idle"] == "1" and environment["OMPI_MCA_pml"] == "ob1"
        assert launched_with(archive / f"jobs/{RUN}.a1.sh", f"{ROOT}/.mpi/openmpi5/bin/mpirun", "-np", "4",
                             "--map-by", ":OVERSUBSCRIBE", "--bind-to", "core:overload-allowed")
    else:
        # ld.so splits LD_PRELOAD at spaces: where the project's path holds
        # one, the preload beside the kernel is named from the kernel's folder.
        preload = environment["LD_PRELOAD"]
        assert preload == "$ORIGIN/libnbh-yield.so" if " " in str(ROOT) else \
            preload.endswith("build/mpich5/libnbh-yield.so"), preload


def test_intel_mpi_with_an_adjust_parameter_set_not_verifiable(bench, tmp_path):
    """Intel MPI's own mpiexec.hydra; I_MPI_ADJUST_ALLTOALL in a parameter set
    runs, is recorded "set, not verifiable", and the report says so."""
    require_release("intelmpi")
    archive, out = five_steps(bench, tmp_path, HERE / "campaigns" / "adjust", "local-intelmpi")
    runs = read_csv(archive / "runs.csv")
    assert {r["state"] for r in runs} == {"done"} and len(runs) == 4
    assert runs[0]["library_version"].startswith(VERSION["intelmpi"])
    job = (archive / "jobs/1x4-pairwise-r001.a1.sh").read_text()
    assert launched_with(archive / "jobs/1x4-pairwise-r001.a1.sh", f"{ROOT}/.mpi/intelmpi/bin/mpiexec.hydra", "-np",
                         "4", "-genv", "I_MPI_ADJUST_ALLTOALL", "3")
    assert "--expect-env I_MPI_ADJUST_ALLTOALL=3" in job and "--expect-cvar" not in job
    prov = json.loads((archive / "results/1x4-pairwise-r001.prov.json").read_text())
    assert prov["environment"]["I_MPI_ADJUST_ALLTOALL"] == "3" and prov["environment"]["I_MPI_FABRICS"] == "shm"
    checks = json.loads((archive / "archive.json").read_text())["param_set_check"]
    assert [(c["run_id"], c["name"], c["verdict"]) for c in checks] == [
        (f"1x4-pairwise-r00{n}", "I_MPI_ADJUST_ALLTOALL", "set, not verifiable") for n in (1, 2)]
    report = (out / "report.md").read_text()
    assert ("| pairwise | I_MPI_ADJUST_ALLTOALL | 3 |  | 2 | set, not verifiable (2 of 2 runs; "
            "not an MPI_T variable (env_only)) |") in report
    warnings = out / "warnings.txt"
    assert not warnings.exists() or "I_MPI_ADJUST" not in warnings.read_text(), "not a warning"


def test_intel_mpi_through_slurm(slurm_bench):
    """The study's VSC3 library as nbhcoll-vsc3 ships: env/slurm-intelmpi,
    its mpiexec.hydra inside the batch job of the test Slurm."""
    require_release("intelmpi")
    bench = slurm_bench
    bench.ok("generate", "demo", "--env", "slurm-intelmpi", "--set", "nrun=2", "--set", "nrep=3",
             "--set", "msize=64")
    script = bench.workspace("demo").job(RUN, 1)
    job = script.read_text()
    assert "#SBATCH --overcommit" in job
    assert launched_with(script, f"{ROOT}/.mpi/intelmpi/bin/mpiexec.hydra", "-np", "4", "-ppn", "4")
    assert "export I_MPI_ROOT=" in job
    submitted = bench.ok("submit", "demo", "--wait", timeout=240)
    assert "demo: 2 runs: 2 done" in submitted.stdout
    archive, _ = bench.archive("demo")
    runs = read_csv(archive / "runs.csv")
    assert {r["state"] for r in runs} == {"done"} and all(r["job_id"].isdigit() for r in runs)
    prov = json.loads((archive / f"results/{RUN}.prov.json").read_text())
    assert prov["library_version"].startswith(VERSION["intelmpi"])
    assert prov["environment"]["SLURM_JOB_ID"] == runs[0]["job_id"]
    assert prov["environment"]["FI_PROVIDER"] == "tcp"
