"""End to end with the real kernel: a PMPI tool slows MPI_Neighbor_alltoall
with MPI_INT by 20 ms at 1 KiB and 4 KiB; generate, submit, archive and
analyze must report exactly those two cells violated, under both libraries.
20 ms, not 2: on a loaded 2-core machine MPICH's calls at 4 processes take
1-3 ms (the scheduler's time slices), and 2 ms drowned in that."""
import pytest

from workflow_testing import HERE, ROOT, read_csv

pytestmark = pytest.mark.quiet   # timings decide: run alone (tests/run)

PLANTED = {1024, 4096}


@pytest.mark.parametrize("library", ["openmpi", "mpich"])
def test_analysis_finds_exactly_the_planted_slowdown(bench, tmp_path, library):
    tool = ROOT / "build" / library / "libnbh-slowdown.so"
    bench.ok("generate", HERE / "campaigns" / "planted", "--env", f"local-{library}",
             "--set", f"launch_env=LD_PRELOAD={tool}",
             "--set", "launch_env=NBH_SLOWDOWN_OP=neighbor_alltoall",
             "--set", "launch_env=NBH_SLOWDOWN_DATATYPE=int",
             "--set", f"launch_env=NBH_SLOWDOWN_MSIZES={','.join(map(str, sorted(PLANTED)))}",
             "--set", "launch_env=NBH_SLOWDOWN_US=20000")
    bench.ok("submit", "planted", "--wait", timeout=600)
    archive, _ = bench.archive("planted")
    out = tmp_path / "analysis"
    analysis = bench("analyze", archive, "--out", out, "--fail-on-violation", timeout=300)
    assert analysis.returncode == 3, analysis.stderr
    assert analysis.stdout.strip().splitlines()[-1] == str(out / "report.html")

    violations = read_csv(out / "violations.csv")
    assert {int(v["msize"]) for v in violations} == PLANTED
    assert all(float(v["ratio"]) > 5 and float(v["p_value"]) <= 0.001 for v in violations)
    assert {v["library"] for v in violations} == {library}
    [summary] = read_csv(out / "summary.csv")
    assert (summary["n_vio_tests"], summary["n_tests"]) == ("2", "4")
    assert (summary["n_vio_groups"], summary["n_groups"]) == ("1", "1")
    assert sorted(p.suffix for p in (out / "plots").iterdir()).count(".png") >= 3, \
        "an overview plot of the group and a focus plot per violation"
