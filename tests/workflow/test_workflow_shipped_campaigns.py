"""Every shipped campaign, cut down with --set, runs through the kernel: the
generator writes nothing the kernel refuses. full-tuned-jupiter also shows
that its parameter set is what the library reports in force (MPI_T), and
progress-tuning that each library's progress switches are."""
import json

import pytest

from workflow_testing import read_csv

# --set items that keep each campaign small at 4 processes (one message size).
CUTS = {"demo": ["msize=64"], "nbhcoll-jupiter": ["msize=256"], "nbhcoll-vsc3": ["msize=256"],
        "full-jupiter": ["msize=256"], "full-rand-jupiter": ["msize=256"],
        "full-tuned-jupiter": ["msize=256"], "guidelines-all": ["msize=64"],
        "openmpi-alltoall-sweep": ["msize=256"], "openmpi-allgather-sweep": ["msize=256"],
        "mpich-coll-sweep": ["msize=256"], "progress": ["msize=256"], "progress-tuning": ["msize=4096"],
        "progress-tuning@mpich": ["msize=4096"], "app-graphs": ["msize=8"],
        "datatypes": ["msize=3200", "op=pingpong", "datatype=int"], "halo": ["halo_n=8"],
        "transpose": ["matrix_n=256"], "arrival": ["msize=64"],
        "locality": ["msize=8", "graph=mtx file=lshape-p1.mtx"]}  # its 10^5-10^6-row graphs: docs/examples/locality
# Campaigns whose parameter sets belong to one library; NAME@LIBRARY: the
# campaign again under another library (its sets for that library). The
# study ran nbhcoll-vsc3 with Intel MPI (make test installs it: nbhbench install-mpi).
ENV = {"mpich-coll-sweep": "local-mpich", "progress-tuning@mpich": "local-mpich",
       "nbhcoll-vsc3": "local-intelmpi"}


@pytest.mark.parametrize("case", sorted(CUTS))
def test_shipped_campaign_runs_through_the_kernel(bench, case):
    campaign = case.split("@")[0]
    cut = [item for pair in (["--set", s] for s in ["deployments=1x4", "nrun=1", "nrep=1"] + CUTS[case])
           for item in pair]
    bench.ok("generate", campaign, "--env", ENV.get(case, "local-openmpi"), *cut)
    result = bench("submit", campaign)
    assert result.returncode == 0, result.stdout + result.stderr
    statuses = bench.status(campaign)
    assert {state for state, _, _ in statuses.values()} == {"done"}
    if campaign == "full-tuned-jupiter":
        archive, _ = bench.archive(campaign)
        checks = json.loads((archive / "archive.json").read_text())["param_set_check"]
        tuned = {c["name"]: c["verdict"] for c in checks if c["param_set"] == "intermediate256"}
        assert tuned["coll_tuned_alltoall_intermediate_msg"] == "in force"
        assert {r["param_set"] for r in read_csv(archive / "runs.csv")} == {"default", "intermediate256"}
    if campaign == "progress-tuning":
        archive, _ = bench.archive(campaign)
        checks = json.loads((archive / "archive.json").read_text())["param_set_check"]
        expected = {"openmpi": {("tcp", "btl"), ("tcp_progress_thread", "btl"),
                                ("tcp_progress_thread", "btl_tcp_progress_thread")},
                    "mpich": {("async_progress", "MPIR_CVAR_ASYNC_PROGRESS")}}[ENV.get(case, "local-openmpi")[6:]]
        assert {(c["param_set"], c["name"]) for c in checks if c["verdict"] == "in force"} == expected
