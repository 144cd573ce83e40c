"""Every number a campaign gives is checked against its bound in
registry/limits.csv (or parameters.csv) where it enters: campaign.conf names
its line, --set its item (docs/robustness.md)."""
import os
import pathlib
import shutil
import subprocess

import pytest

from gen.errors import ConfigError
from gen.experiments import complete_all

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def private_work(tmp_path, monkeypatch):
    monkeypatch.setenv("NBH_WORK", str(tmp_path / "work"))


def generate(*args):
    return subprocess.run([str(ROOT / "nbhbench"), "generate", *args], capture_output=True, text=True,
                          timeout=120, env=dict(os.environ))


def campaign(tmp_path, old, new):
    folder = tmp_path / "mine"
    shutil.copytree(ROOT / "campaigns" / "demo", folder)
    conf = folder / "campaign.conf"
    assert old in conf.read_text()
    conf.write_text(conf.read_text().replace(old, new))
    return folder


SET_CASES = [
    ("deployments=1x100000000", "--set deployments=1x100000000: '1x100000000': ppn 100000000 is outside 1..4096 "
                                "processes (registry/limits.csv: ppn)"),
    ("deployments=100001x1", "nodes 100001 is outside 1..100000 nodes (registry/limits.csv: nodes)"),
    ("deployments=1024x2048", "nodes x ppn = 2097152 is outside 1..1048576 processes (registry/limits.csv: nprocs)"),
    ("deployments=" + ",".join(f"1x{p}" for p in range(1, 102)),
     "deployments 101 is outside 1..100 deployments (registry/limits.csv: deployments)"),
    ("nrun=10001", "--set nrun=10001: 10001 is outside 1..10000 runs (registry/limits.csv: nrun)"),
    ("nrep=100000001", "--set nrep=100000001: 100000001 is outside 1..100000000 (registry/parameters.csv: nrep)"),
    ("time_limit=367-00:00:00", "--set time_limit=367-00:00:00: '367-00:00:00' = 31708800 is outside 1..31622400 "
                                "seconds (registry/limits.csv: time_limit)"),
    ("experiments_time_limit=2-00:00:00", "is outside 1..86400 seconds (registry/limits.csv: experiments_time_limit)"),
    ("work_us=10000001", "--set work_us=10000001: 10000001 is outside 0..10000000 (registry/parameters.csv)"),
    ("seed=18446744073709551616", "is outside 0..18446744073709551615 (registry/parameters.csv: seed)"),
]


@pytest.mark.parametrize("item, message", SET_CASES, ids=[c[0][:30] for c in SET_CASES])
def test_a_set_item_beyond_its_bound_is_named(item, message):
    result = generate("demo", "--env", "local-openmpi", "--set", item)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr
    assert not (pathlib.Path(os.environ["NBH_WORK"]) / "demo").exists()


@pytest.mark.parametrize("old, new, message", [
    ("deployments = 1x4", "deployments = 1x100000000", "campaign.conf:7: deployments: '1x100000000': ppn 100000000"),
    ("nrun = 10", "nrun = 20000", "campaign.conf:8: nrun: 20000 is outside 1..10000"),
    ("time_limit = 10:00", "time_limit = 400-00", "campaign.conf:10: time_limit: '400-00' = 34560000 is outside"),
    ("time_limit = 10:00", "time_limit = 10:00\nexperiments_time_limit = 0",
     "campaign.conf:11: experiments_time_limit: '0' is no time at all"),
])
def test_a_campaign_setting_beyond_its_bound_names_its_line(tmp_path, old, new, message):
    result = generate(str(campaign(tmp_path, old, new)), "--env", "local-openmpi")
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr


def test_too_many_runs_names_where_each_factor_came_from():
    result = generate("demo", "--env", "local-openmpi", "--set", "nrun=10000",
                      "--set", "deployments=" + ",".join(f"1x{p}" for p in range(1, 12)))
    assert result.returncode == 2
    assert ("11 deployments x 1 parameter sets x nrun 10000 (deployments from --set, param_sets from "
            "campaign.conf, nrun from --set): runs 110000 is outside 1..100000 runs (registry/limits.csv: runs)"
            in result.stderr), result.stderr


def test_too_many_experiments_is_refused_before_they_are_checked(tmp_path):
    class Many(list):
        def __len__(self):
            return 1_000_001
    with pytest.raises(ConfigError, match=r"experiments.py: the design's number of experiments, 1000001 is outside "
                                          r"1\.\.1000000 experiments \(registry/limits.csv: experiments\)"):
        complete_all(Many(), tmp_path / "experiments.py")
