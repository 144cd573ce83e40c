"""Fixtures of the workflow tests: a private work and archive folder per
test (workflow_testing.Bench) and one real multi-node Slurm for the session
(slurm_cluster.py)."""
import pytest

from slurm_cluster import SlurmCluster
from workflow_testing import Bench


@pytest.fixture
def bench(tmp_path):
    return Bench(tmp_path)


@pytest.fixture(scope="session")
def slurm():
    # Four nodes of two CPUs; jobs may ask for at most an hour (a longer
    # one waits for ever: PartitionTimeLimit).
    cluster = SlurmCluster(nodes=4, max_time=60).start()
    try:
        yield cluster
    finally:
        cluster.stop()
        cluster.cleanup()


@pytest.fixture
def slurm_bench(tmp_path, slurm):
    return Bench(tmp_path, slurm.env, slurm)
