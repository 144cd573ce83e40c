"""End to end with the real kernel and the datatype guidelines: a PMPI tool
slows MPI_Send by 20 ms, but only for datatypes built with
MPI_Type_create_struct; generate, submit, archive and analyze must report
DT3 violated for the struct description of the tiled layout at both sizes,
and for no other description, under both libraries. 20 ms against a
ping-pong of 10-100 us on a loaded machine; the ratio threshold 5 keeps the
libraries' own differences between descriptions (up to about 2x here, as
the studies found elsewhere) out of a test of the planted one."""
import pytest

from workflow_testing import HERE, ROOT, read_csv

pytestmark = pytest.mark.quiet   # timings decide: run alone (tests/run)


@pytest.mark.parametrize("library", ["openmpi", "mpich"])
def test_analysis_finds_exactly_the_slow_struct_descriptions(bench, tmp_path, library):
    tool = ROOT / "build" / library / "libnbh-struct-slowdown.so"
    bench.ok("generate", HERE / "campaigns" / "struct-slowdown", "--env", f"local-{library}",
             "--set", f"launch_env=LD_PRELOAD={tool}", "--set", "launch_env=NBH_SLOWDOWN_US=20000")
    bench.ok("submit", "struct-slowdown", "--wait", timeout=600)
    archive, _ = bench.archive("struct-slowdown")
    out = tmp_path / "analysis"
    analysis = bench("analyze", archive, "--out", out, "--fail-on-violation", "--no-plots", "--v-thres", "5",
                     timeout=300)
    assert analysis.returncode == 3, analysis.stderr

    violations = read_csv(out / "violations.csv")
    assert {(v["tag"], v["type_constructor"] or v["a_params"], int(v["msize"])) for v in violations} == \
        {("DT3", "type_constructor=struct", 800), ("DT3", "type_constructor=struct", 3200)}
    assert all(float(v["ratio"]) > 5 and float(v["p_value"]) <= 0.001 for v in violations), \
        [(v["ratio"], v["median_a_us"], v["median_b_us"]) for v in violations]
    summary = {row["guideline"]: (row["n_vio_tests"], row["n_tests"]) for row in read_csv(out / "summary.csv")}
    assert summary == {"layout=tiled,vector <= layout=tiled,contiguous_resized": ("0", "2"),
                       "layout=tiled,hvector <= layout=tiled,contiguous_resized": ("0", "2"),
                       "layout=tiled,struct <= layout=tiled,contiguous_resized": ("2", "2")}
