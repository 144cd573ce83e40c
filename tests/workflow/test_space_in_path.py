"""nbhbench cloned into a folder whose path holds spaces: make (deps, a
library's kernel, the analyzer) and every command work there, and the five
steps of a small local campaign under Open MPI and under MPICH (whose yield
preload lives in the build folder, which ld.so cannot be given a path with a
space) run through to a report. The checkout is copied (the tracked files,
the MPICH kernel already built; the Open MPI kernel, a tool and the
analyzer are built there); .venv and .mpi are linked."""
import os
import pathlib
import shlex
import shutil
import subprocess

import pytest

from workflow_testing import ROOT, read_csv

LEFT_TO_THE_COPY = ("NBH_ROOT", "NBH_WORK", "NBH_ARCHIVES", "NBH_ANALYSES", "NBH_BUILD", "NBH_PYTHON")


@pytest.fixture(scope="module")
def spaced(tmp_path_factory):
    """(the copy's folder, run): run(*command) runs there, returns the result."""
    if not (ROOT / "build" / "mpich" / "nbh-kernel").is_file():
        pytest.fail("build/mpich is not built (run make)")
    root = tmp_path_factory.mktemp("space") / "my projects" / "nbh bench"
    tracked = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, text=True, check=True).stdout.split("\0")
    for name in filter(None, tracked):
        source = ROOT / name
        if source.is_file() and not source.is_symlink():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, root / name)
    shutil.copytree(ROOT / "build" / "mpich", root / "build" / "mpich", symlinks=True)
    for name in (".venv", ".mpi"):
        (root / name).symlink_to((ROOT / name).resolve())
    env = {k: v for k, v in os.environ.items() if k not in LEFT_TO_THE_COPY}

    def run(*command, timeout=300):
        done = subprocess.run([str(c) for c in command], cwd=root, env=env, capture_output=True, text=True,
                              timeout=timeout)
        assert done.returncode == 0, f"{' '.join(map(str, command))} in {root}: {done.stdout}{done.stderr}"
        return done

    return root, run


def test_make_builds_a_kernel_the_tools_and_the_analyzer_and_finds_the_releases(spaced):
    root, run = spaced
    run("make", "deps")
    run("make", "kernel", "LIBRARY=openmpi", "MPICC=mpicc.openmpi")
    run("make", "build/nbh-dims", "analyzer")
    assert os.access(root / "build" / "openmpi" / "nbh-kernel", os.X_OK)
    assert list((root / "build" / "analyze").glob("*/nbh_analyze.so"))
    # What `make kernels` builds besides Debian's: the releases installed in .mpi/.
    installed = sorted(p.parent.name for p in (ROOT / ".mpi").glob("*/.nbh-installed"))
    listed = run("make", "-s", "--eval", "print-releases: ; @echo $(INSTALLED_LIBRARIES)", "print-releases")
    assert listed.stdout.split() == installed


def test_the_five_steps_of_a_local_campaign_under_open_mpi_and_mpich(spaced):
    root, run = spaced
    nbhbench = root / "nbhbench"
    archives = []
    for library in ("openmpi", "mpich"):
        env = f"local-{library}"
        if library == "openmpi":  # build/mpich came with the copy: a rebuild would only cost time
            run(nbhbench, "build", "--env", env)
        run(nbhbench, "generate", "demo", "--env", env, "--set", "nrun=2", "--set", "nrep=3", "--set", "msize=64")
        run(nbhbench, "submit", "demo")
        assert "2 done" in run(nbhbench, "status", "demo").stdout
        archive = pathlib.Path(run(nbhbench, "archive", "demo").stdout.strip().splitlines()[-1])
        assert archive.parent == root / "archives"
        assert [r["state"] for r in read_csv(archive / "runs.csv")] == ["done", "done"]
        archives.append(archive)
    run(nbhbench, "archive", "--verify", archives[0])
    # The yield preload was named as ld.so can take it; the kernel had it.
    job = (root / "work" / "demo" / "jobs" / "1x4-default-r001.a1.sh").read_text()
    assert "-genv LD_PRELOAD '$ORIGIN/libnbh-yield.so'" in job
    report = run(nbhbench, "analyze", *archives, "--max-plots", "1").stdout.strip().splitlines()[-1]
    assert pathlib.Path(report).is_file() and report.startswith(str(root / "analyses"))


def test_the_other_commands_and_the_job_scripts_of_slurm_and_the_releases(spaced):
    root, run = spaced
    nbhbench = root / "nbhbench"
    assert "generate" in run(nbhbench, "help").stdout
    assert run(nbhbench, "dims", "12", "2").stdout == "4 3\n"
    assert "  neighbor_alltoall " in run(nbhbench, "list").stdout
    run(nbhbench, "generate", "demo", "--env", "slurm-openmpi", "--set", "nrun=1")
    job = (root / "work" / "demo" / "jobs" / "1x4-default-r001.a1.sh").read_text().splitlines()
    [output] = [line for line in job if line.startswith("#SBATCH --output") or line.startswith("#SBATCH '--output")]
    # sbatch splits #SBATCH lines at spaces, honouring quotes as the shell does.
    assert shlex.split(output)[1:] == [f"--output={root}/work/demo/logs/1x4-default-r001.a1.log"]
    run(nbhbench, "generate", "demo", "--env", "local-openmpi5", "--set", "nrun=1")
    launcher = [line for line in (root / "work" / "demo" / "jobs" / "1x4-default-r001.a1.sh").read_text().splitlines()
                if "mpirun" in line and not line.startswith("echo")][0]
    assert shlex.split(launcher)[0] == f"{root}/.mpi/openmpi5/bin/mpirun"
