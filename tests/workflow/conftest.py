"""Fixtures of the workflow tests: a private work and archive folder per
test (workflow_testing.Bench), one real multi-node Slurm for the session
(slurm_cluster.py), and the progress-shim archives, measured once a
session for the tests that read them."""
import pytest

from slurm_cluster import SlurmCluster
from workflow_testing import Bench, measure_progress_shim


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


@pytest.fixture(scope="session")
def progress_archive(tmp_path_factory):
    """progress_archive(library): the archive of the progress-shim campaign
    measured under LIBRARY with progress taken away
    (workflow_testing.measure_progress_shim), real MPI runs made once a
    session: test_end_to_end_progress.py checks what it planted,
    test_report_page.py opens the report of both libraries' archives."""
    archives = {}

    def archive(library):
        if library not in archives:
            directory = tmp_path_factory.mktemp(f"progress-{library}")
            archives[library] = measure_progress_shim(directory, library)
        return archives[library]
    return archive
