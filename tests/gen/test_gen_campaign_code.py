"""A campaign's experiments.py is user code: whatever it does, generate
ends with one line and a non-zero exit, within the campaign's
experiments_time_limit, and writes nothing (gen/isolated_call.py)."""
import os
import pathlib
import shutil
import subprocess
import time

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def private_work(tmp_path, monkeypatch):
    monkeypatch.setenv("NBH_WORK", str(tmp_path / "work"))


def campaign_with(tmp_path, tail):
    folder = tmp_path / "mine"
    shutil.copytree(ROOT / "campaigns" / "demo", folder)
    design = folder / "experiments.py"
    design.write_text(design.read_text() + tail)
    return folder, len(design.read_text().splitlines())


def generate(folder, *args):
    return subprocess.run([str(ROOT / "nbhbench"), "generate", str(folder), "--env", "local-openmpi", *args],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ))


@pytest.mark.parametrize("tail, message", [
    ("import sys\nsys.exit(0)\n", "experiments.py:{line}: exited while defining the experiments (sys.exit(0))"),
    ("raise SystemExit('done')\n", "experiments.py:{line}: exited while defining the experiments (sys.exit('done'))"),
    ("import os\nos._exit(0)\n", "experiments.py: exited while defining the experiments (exit status 0)"),
    ("import os\nos._exit(3)\n", "experiments.py: exited while defining the experiments (exit status 3)"),
    ("import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n",
     "experiments.py: exited while defining the experiments (killed by signal 11 (SIGSEGV))"),
    ("raise KeyboardInterrupt\n", "experiments.py:{line}: KeyboardInterrupt"),
])
def test_campaign_code_that_exits_is_one_line_and_exit_2(tmp_path, tail, message):
    folder, line = campaign_with(tmp_path, tail)
    result = generate(folder)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert message.format(line=line) in result.stderr
    assert not (tmp_path / "work").exists() or not any((tmp_path / "work").iterdir())


def test_campaign_code_that_never_ends_meets_its_time_limit(tmp_path):
    marker = f"300.{os.getpid()}"  # a sleep only this test starts
    folder, _ = campaign_with(tmp_path, f"import subprocess\nsubprocess.Popen(['sleep', '{marker}'])\n"
                                        "while True:\n    pass\n")
    start = time.monotonic()
    result = generate(folder, "--set", "experiments_time_limit=0:02")
    elapsed = time.monotonic() - start
    assert result.returncode == 2
    assert ("experiments.py: did not finish within 2 s (experiments_time_limit = 2 s from --set; raise it in "
            "campaign.conf or with --set experiments_time_limit=MM:SS)") in result.stderr
    assert elapsed < 20
    time.sleep(0.5)
    left = subprocess.run(["pgrep", "-f", f"^sleep {marker}$"], capture_output=True, text=True).stdout.split()
    assert not left, "what the campaign code started is ended with it"


def test_the_time_limit_comes_from_campaign_conf(tmp_path):
    folder, _ = campaign_with(tmp_path, "import time\ntime.sleep(60)\n")
    conf = folder / "campaign.conf"
    conf.write_text(conf.read_text() + "experiments_time_limit = 0:01\n")
    result = generate(folder)
    assert result.returncode == 2
    assert "did not finish within 1 s (experiments_time_limit = 1 s from " in result.stderr
    assert "campaign.conf:" in result.stderr


def test_campaign_code_that_prints_still_generates(tmp_path):
    folder, _ = campaign_with(tmp_path, "print('defining the experiments')\n")
    result = generate(folder)
    assert result.returncode == 0, result.stderr
    assert "defining the experiments" in result.stdout
