"""Shared fixtures for the kernel tests: the built kernels of both MPI
libraries, and a way to run one on a list of experiments."""
import pytest

from kernel_runner import LIBRARIES, KernelRun


@pytest.fixture(params=LIBRARIES)
def library(request):
    return request.param


@pytest.fixture
def kernel(tmp_path):
    """kernel(library, nprocs, rows_or_text, *args, launch_env=[(VAR, value)]) -> KernelRun"""
    counter = iter(range(1000))

    def run(library, nprocs, experiments, *args, timeout=300, launch_env=()):
        return KernelRun.start(library, nprocs, experiments, tmp_path / f"run{next(counter)}", args,
                               timeout=timeout, launch_env=launch_env)

    return run
