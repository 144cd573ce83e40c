"""Makes the project's Python packages (gen, workflow) and the tests' own
helpers (tests/*.py) importable from every test; the shared fixtures."""
import os
import pathlib
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
os.environ.setdefault("NBH_ROOT", str(ROOT))
for folder in (str(ROOT), str(ROOT / "tests")):
    if folder not in sys.path:
        sys.path.insert(0, folder)

from small_filesystem import SmallFilesystem  # noqa: E402

QUIET = ("quiet: a verdict from timings measured here (a planted slowdown found, overlap, clock skew); "
         "tests/run runs these alone, after the tests that run in two lanes")


def pytest_configure(config):
    config.addinivalue_line("markers", QUIET)


@pytest.fixture
def small_fs(tmp_path):
    """A private 8 MiB tmpfs (small_filesystem.py), unmounted after the test."""
    fs = SmallFilesystem(tmp_path / "small")
    try:
        yield fs
    finally:
        fs.unmount()
