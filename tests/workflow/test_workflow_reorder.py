"""The reorder record from kernel to report: a campaign with reorder = 0 and
1 experiments runs with a PMPI tool that renumbers the processes of every
MPI_Cart_create(reorder = 1) (tests/kernel/pmpi_reorder.c), as a library
may; the archive counts the renumbered experiments per run and the report
shows them beside GL12."""
from workflow_testing import ROOT, read_csv


def test_the_report_says_where_reorder_renumbered_processes(bench, tmp_path):
    tool = ROOT / "build" / "openmpi" / "libnbh-reorder.so"
    bench.ok("generate", "nbhcoll-jupiter", "--env", "local-openmpi", "--set", "deployments=1x4",
             "--set", "nrun=1", "--set", "nrep=2", "--set", "msize=256", "--set", "ndim=2",
             "--set", "op=neighbor_allgather", "--set", f"launch_env=LD_PRELOAD={tool}")
    bench.ok("submit", "nbhcoll-jupiter", timeout=600)
    archive, _ = bench.archive("nbhcoll-jupiter")
    [run] = read_csv(archive / "runs.csv")
    record = read_csv(archive / f"results/{run['run_id']}.reorder.csv")
    experiments = {e["id"]: e for e in read_csv(archive / "experiments.csv")}
    assert {r["id"] for r in record} == {i for i, e in experiments.items() if e["reorder"] == "1"}
    renumbered = {r["id"] for r in record if r["ranks_changed"] == "4"}
    assert renumbered == {i for i, e in experiments.items() if e["reorder"] == "1" and e["topology"] == "cart"}
    assert (run["reorder_experiments"], run["reorder_changed"]) == (str(len(record)), str(len(renumbered)))

    out, assess = tmp_path / "analysis", tmp_path / "reorder.conf"
    assess.write_text("[reorder]\nparameter = reorder\nvaried = msize\nGL12: reorder=1 <= reorder=0\n")
    bench.ok("analyze", archive, "--out", out, "--no-plots", "--assess", assess, timeout=300)
    report = (out / "report.md").read_text()
    assert "**Reorder** (GL3, GL12)" in report
    assert (f"| openmpi | 1x4 | 1 | {len(record)} | {len(renumbered)} | renumbered in {len(renumbered)} of "
            f"{len(record)} experiment runs |") in report
