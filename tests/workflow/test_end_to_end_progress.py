"""End to end with the real kernel, for asynchronous progress (SPEC 7.1):
a PMPI tool built here (pmpi_progress.c) takes progress away, and
generate, submit, archive and analyze must find what it planted, under both
libraries; a kernel built for a library without persistent collectives
makes generate leave them out, visibly, and the archive record it."""
import json
import subprocess
import sys

import pytest

from workflow_testing import HERE, ROOT, read_csv

pytestmark = pytest.mark.quiet   # timings decide: run alone (tests/run)


@pytest.mark.parametrize("library", ["openmpi", "mpich"])
def test_progress_taken_away_violates_gl16_and_gl14_without_overlap(bench, tmp_path, progress_archive, library):
    archive = progress_archive(library)
    out = tmp_path / "analysis"
    bench.ok("analyze", archive, "--out", out, timeout=300)

    tests = read_csv(out / "tests.csv")
    gl14 = [t for t in tests if t["tag"] == "GL14"]
    assert [t["violated"] for t in gl14] == ["TRUE"], "MPI_Start spins 400 us: persistent is slower"
    assert float(gl14[0]["ratio"]) > 3
    gl16 = {t["a_params"]: t for t in tests if t["tag"] == "GL16"}
    assert set(gl16) == {"work_factor=1", "work_factor=2"}
    # Nothing overlaps: t_ovl = t_pure + w against max(t_pure, w), about 2 at
    # work_factor 1 (violated), 1.5 at 2 (whose p the noise of the measured
    # work on a shared 2-core machine can keep above 0.001).
    assert gl16["work_factor=1"]["violated"] == "TRUE" and float(gl16["work_factor=1"]["p_value"]) <= 0.001, \
        gl16["work_factor=1"]
    # The ratios themselves are timings of a loaded machine (1.43-1.54 and
    # 1.31 seen at work_factor 1 and 2): bounds far from 1, not the theory's 2.
    assert float(gl16["work_factor=1"]["ratio"]) > 1.25
    assert float(gl16["work_factor=2"]["ratio"]) > 1.15
    overlap = {row["work_factor"]: row for row in read_csv(out / "overlap.csv")}
    assert set(overlap) == {"1", "2"}
    for row in overlap.values():
        assert row["op"] == "ineighbor_alltoall" and row["msize"] == "1048576"
        assert float(row["overlap_percent"]) < 25, row   # noise around 0; real progress gives ~100
        assert float(row["t_work_us"]) > 0.5 * float(row["work_factor"]) * float(row["t_pure_us"])
    assert (out / "plots" / "overlap-01.png").is_file()
    assert "## Overlap with busy work" in (out / "report.md").read_text()


def test_work_factor_and_init_times_reach_the_archive(bench, tmp_path):
    """The kernel's preparation records travel with the results."""
    bench.ok("generate", HERE / "campaigns" / "progress-shim", "--env", "local-openmpi", "--set", "nrun=1",
             "--set", "nrep=3")
    bench.ok("submit", "progress-shim", "--wait", timeout=300)
    archive, _ = bench.archive("progress-shim")
    experiments = {row["id"]: row for row in read_csv(archive / "experiments.csv")}
    rows = read_csv(archive / "results" / "1x2-default-r001.preparation.csv")
    persistent = [r for r in rows if experiments[r["id"]]["op"] == "neighbor_alltoall_init"]
    assert len(persistent) == 1 and float(persistent[0]["init_seconds"]) > 0
    factored = {experiments[r["id"]]["work_factor"]: r for r in rows if r["work_reference"]}
    assert set(factored) == {"1", "2"}
    for factor, row in factored.items():
        assert row["work_reference"] == "ineighbor_alltoall"
        assert float(row["work_us"]) == pytest.approx(float(factor) * float(row["work_reference_seconds"]) * 1e6,
                                                      rel=1e-3)
    assert "1x2-default-r001.preparation.csv" in (archive / "MANIFEST.sha256").read_text()


def test_a_library_without_persistent_collectives(bench, tmp_path):
    """A kernel built as for an MPI-3 library: generate names the
    environment and the operations it leaves out, the archive records it,
    the kernel refuses them with one line, the analysis names the gap."""
    build = tmp_path / "build"
    env_file = tmp_path / "mpi3-openmpi"
    env_file.write_text((ROOT / "env" / "local-openmpi").read_text().replace(
        "mpicc = mpicc.openmpi", "mpicc = mpicc.openmpi -DNBH_WITHOUT_PERSISTENT_COLLECTIVES"))
    bench.env["NBH_BUILD"] = str(build)
    bench.ok("build", "--env", env_file, timeout=600)
    operations = {row["name"]: row for row in read_csv(build / "openmpi" / "operations.csv")}
    assert operations["neighbor_alltoall_init"]["available"] == "0"
    assert operations["neighbor_alltoall"]["available"] == "1"

    generated = bench.ok("generate", HERE / "campaigns" / "progress-shim", "--env", env_file, "--set", "nrun=1",
                         "--set", "nrep=2")
    assert ("nbhbench: generate: environment mpi3-openmpi (openmpi) cannot run neighbor_alltoall_init: the MPI "
            "library of this kernel build has no persistent neighborhood collectives") in generated.stderr
    assert "left out 1 experiment\n" in generated.stderr
    assert "4 experiments" in generated.stdout
    bench.ok("submit", "progress-shim", "--wait", timeout=300)
    archive, _ = bench.archive("progress-shim")
    left_out = json.loads((archive / "archive.json").read_text())["left_out"]
    assert left_out["operations"] == ["neighbor_alltoall_init"] and left_out["experiments"] == 1
    assert "no persistent neighborhood collectives" in left_out["reason"]
    assert "neighbor_alltoall_init" not in {row["op"] for row in read_csv(archive / "experiments.csv")}

    listed = subprocess.run([str(build / "openmpi" / "nbh-kernel"), "--operations"], capture_output=True,
                            text=True, timeout=60)
    assert listed.returncode == 0 and "neighbor_alltoallw_init,0," in listed.stdout
    sys.path.insert(0, str(ROOT / "tests" / "kernel"))
    from kernel_runner import launch_command
    given = tmp_path / "init.csv"
    given.write_text("id,op,topology,constructor,ndim,nfin,radius,order,reorder,datatype,msize,nrep,work_us,seed\n"
                     "1,neighbor_alltoall_init,cart,,1,0,,,0,,64,2,,1\n")
    command, env = launch_command("openmpi", 2, [str(build / "openmpi" / "nbh-kernel"), "-i", str(given), "-o",
                                                 str(tmp_path / "refused")])
    refused = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    assert refused.returncode != 0
    assert [line for line in refused.stderr.splitlines() if line.startswith("nbh-kernel:")] == [
        f"nbh-kernel: {given}:2: column op: neighbor_alltoall_init: the MPI library of this kernel build has no "
        "persistent neighborhood collectives (MPI 3.1; persistent names: none (built with "
        "-DNBH_WITHOUT_PERSISTENT_COLLECTIVES)); leave it out (nbhbench generate does)"]

    analysis = bench("analyze", archive, "--out", tmp_path / "analysis")
    assert analysis.returncode == 2
    lines = analysis.stderr.strip().splitlines()
    assert len(lines) == 1 and "level 'neighbor_alltoall_init' of parameter op is not in the archives" in lines[0]
