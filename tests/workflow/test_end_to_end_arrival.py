"""End to end with the real kernel: one process of a ring of 4 arrives 20 ms
late; AR2 (its non-neighbor completes as without delay) holds, under both
libraries, and is violated exactly when a PMPI tool makes every
MPI_Neighbor_alltoall wait for all processes first (a library that
synchronises globally: tests/workflow/pmpi_neighbor_barrier.c)."""
import pytest

from workflow_testing import HERE, ROOT, read_csv

pytestmark = pytest.mark.quiet   # timings decide: run alone (tests/run)


def assess(bench, tmp_path, library, tool):
    preload = ["--set", f"launch_env=LD_PRELOAD={ROOT / 'build' / library / 'libnbh-neighbor-barrier.so'}"] \
        if tool else []
    bench.ok("generate", HERE / "campaigns" / "arrival-planted", "--env", f"local-{library}", *preload)
    bench.ok("submit", "arrival-planted", "--wait", timeout=600)
    archive, _ = bench.archive("arrival-planted")
    assert (archive / "results" / "1x4-default-r001.ranks.csv").is_file(), "the per-process times are archived"
    results = (archive / "results" / "1x4-default-r001.results.csv").read_text().split("\n")
    assert results[0] == "id,rep,round,seconds,work_seconds,delay_seconds", "the measured delay is archived and checked"
    assert {run["state"] for run in read_csv(archive / "runs.csv")} == {"done"}
    assert "1x4-default-r001.ranks.csv" in (archive / "MANIFEST.sha256").read_text()
    out = tmp_path / f"analysis-{tool}"
    analysis = bench("analyze", archive, "--out", out, timeout=300)
    assert analysis.returncode == 0, analysis.stderr
    return read_csv(out / "tests.csv"), read_csv(out / "arrival.csv")


@pytest.mark.parametrize("library", ["openmpi", "mpich"])
def test_ar2_finds_a_global_wait_and_only_it(bench, tmp_path, library):
    tests, arrival = assess(bench, tmp_path, library, tool=False)
    [ar2] = tests
    assert ar2["violated"] == "FALSE", ar2
    roles = {row["rank"]: row["role"] for row in arrival}
    assert roles == {"0": "other", "1": "neighbor", "2": "late", "3": "neighbor"}

    tests, _ = assess(bench, tmp_path, library, tool=True)
    [ar2] = tests
    assert ar2["violated"] == "TRUE" and float(ar2["p_value"]) <= 0.001, ar2
