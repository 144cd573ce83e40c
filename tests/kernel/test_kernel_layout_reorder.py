"""What the kernel records about where its processes ran and how the
library numbered them: hosts with their ranks and cores (the archive's
layout check reads them), and whether reorder = 1 renumbered any process
(PREFIX.reorder.csv)."""
import json
import os

from kernel_runner import BUILD


def experiment(id_, reorder, topology="cart", **values):
    e = dict(id=id_, op="neighbor_alltoall", topology=topology, ndim=2, nfin=0, reorder=reorder, msize=64,
             nrep=2, seed=5)
    e.update(values)
    return e


def test_hosts_carry_their_ranks_and_cores(kernel, library):
    run = kernel(library, 3, [experiment(1, 0)])
    assert run.returncode == 0, run.stderr
    hosts = json.loads(run.file("prov.json").read_text())["hosts"]
    assert len(hosts) == 1 and hosts[0]["name"] == os.uname().nodename and hosts[0]["ranks"] == "0-2"
    assert hosts[0]["cores_online"] == os.cpu_count()
    # The ranks may run on the cores of their affinity masks: here, unbound, all of this process's.
    assert hosts[0]["cores"] == len(os.sched_getaffinity(0))


def test_reorder_records_each_reorder_1_experiment(kernel, library):
    experiments = [experiment(1, 1), experiment(2, 0), experiment(3, 1, topology="moore", radius=1),
                   experiment(4, 1, op="create", msize=None)]
    run = kernel(library, 4, experiments)
    assert run.returncode == 0, run.stderr
    record = run.table("reorder.csv")
    assert list(record.columns) == ["id", "ranks_changed"]
    # Neither library renumbers on this machine; reorder = 0 experiments are not listed.
    assert record.to_dict("list") == {"id": [1, 3, 4], "ranks_changed": [0, 0, 0]}


def test_reorder_counts_the_processes_a_library_renumbers(kernel, library):
    # libnbh-reorder.so makes MPI_Cart_create(reorder = 1) number the processes backwards.
    tool = f"LD_PRELOAD={BUILD / library / 'libnbh-reorder.so'}"
    experiments = [experiment(1, 1), experiment(2, 1, topology="moore", radius=1),
                   experiment(3, 1, op="create", msize=None)]
    run = kernel(library, 4, experiments, "--validate", launch_env=[tool.split("=", 1)])
    assert run.returncode == 0, run.stderr
    record = run.table("reorder.csv").set_index("id")["ranks_changed"].to_dict()
    assert record == {1: 4, 2: 0, 3: 4}, "Cartesian topologies renumbered, the distributed graph not"
    findings = run.table("findings.csv")
    assert not (findings["id"] == 1).any(), "renumbered, the data still reach the right neighbors"


def test_no_reorder_file_without_reorder_1(kernel, library):
    run = kernel(library, 2, [experiment(1, 0)])
    assert run.returncode == 0 and not run.file("reorder.csv").exists()
