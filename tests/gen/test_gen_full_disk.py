"""A full disk while generate writes: one line naming the file and "No space
left on device", exit 74, no half-made workspace, an earlier workspace left
as it was; with space again generate succeeds (docs/robustness.md)."""
import json
import os
import pathlib
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[2]


def generate(work, *args):
    return subprocess.run([str(ROOT / "nbhbench"), "generate", "demo", "--env", "local-openmpi", *args],
                          capture_output=True, text=True, timeout=60, env=dict(os.environ, NBH_WORK=str(work)))


def test_a_full_disk_leaves_no_half_made_workspace(small_fs):
    work = small_fs.path / "work"
    small_fs.fill(64 * 1024)  # a few files fit, not the workspace
    failed = generate(work)
    assert failed.returncode == 74, failed.stderr
    line = failed.stderr.strip()
    assert "\n" not in line and line.startswith(f"nbhbench: {work}/demo/"), line
    assert ": No space left on device (nothing was written: " in line and line.endswith("demo was not made)"), line
    assert small_fs.files() == ["work"], "no staged workspace, no temporary file is left"
    small_fs.free()
    assert generate(work).returncode == 0
    assert json.loads((work / "demo" / "campaign.json").read_text())["settings"]["nrun"] == 10


def test_a_full_disk_leaves_an_earlier_workspace_as_it_was(small_fs):
    work = small_fs.path / "work"
    assert generate(work, "--set", "nrun=2").returncode == 0
    before = {p: p.read_bytes() for p in (work / "demo").rglob("*") if p.is_file()}
    small_fs.fill(64 * 1024)
    failed = generate(work, "--set", "nrun=9")
    assert failed.returncode == 74
    assert ": No space left on device (nothing was written: " in failed.stderr
    assert failed.stderr.strip().endswith("demo was left as it was)")
    assert {p: p.read_bytes() for p in (work / "demo").rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in work.iterdir()) == ["demo"]
