"""Campaigns on the real multi-node Slurm of the tests (slurm_cluster.py: four
nodes, each slurmd in its own UTS namespace with its own host name): 2x2
and 4x1 through all five steps with both shipped Slurm environments, where
every rank ran; a launcher that ignores the deployment (layout-mismatch);
--ntasks-per-node; a deployment larger than the partition; a job Slurm can
never start, and generating its campaign afresh."""
import json
import re
import subprocess
import time

import pytest

from workflow_testing import ROOT, read_csv

LIBRARIES = ["openmpi", "mpich"]
# What makes a launcher put every rank on the job's first node.
ALL_ON_ONE_NODE = {"openmpi": ("ppr:{ppn}:node", "ppr:{nprocs}:node"), "mpich": ("-ppn {ppn}", "-ppn {nprocs}")}


def rank_blocks(hosts):
    """[(host, [ranks])] of a prov.json's hosts."""
    out = []
    for h in hosts:
        ranks = []
        for part in h["ranks"].split(","):
            first, _, last = part.partition("-")
            ranks += range(int(first), int(last or first) + 1)
        out.append((h["name"], ranks))
    return out


def site_environment(tmp_path, library, old="", new="", name=None):
    """A site's copy of env/slurm-LIBRARY with OLD replaced by NEW."""
    path = tmp_path / (name or f"site-{library}")
    text = (ROOT / "env" / f"slurm-{library}").read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    return path


@pytest.mark.parametrize("library", LIBRARIES)
def test_2x2_and_4x1_through_all_five_steps(slurm_bench, library, tmp_path):
    bench, nodes = slurm_bench, set(slurm_bench.slurm.node_names)
    env = f"slurm-{library}"
    bench.ok("build", "--env", env, timeout=600)
    bench.ok("generate", "demo", "--env", env, "--set", "deployments=2x2,4x1", "--set", "nrun=1",
             "--set", "nrep=3")
    job = bench.workspace("demo").job("2x2-default-r001", 1).read_text()
    assert "#SBATCH --nodes=2" in job and "#SBATCH --ntasks=4" in job
    assert "--ntasks-per-node" not in job, "the shipped environments oversubscribe: ntasks_per_node = no"
    bench.ok("submit", "demo", "--wait", timeout=300)
    status = bench.ok("status", "demo").stdout.splitlines()
    assert status[1].split()[-2:] == ["layout", "note"]
    assert all(line.split()[1] == "done" and line.split()[6] == "ok" for line in status[2:]), status

    archive, result = bench.archive("demo")
    assert "layout-mismatch" not in result.stderr
    runs = {r["run_id"]: r for r in read_csv(archive / "runs.csv")}
    for run_id, (count, per_node) in {"2x2-default-r001": (2, 2), "4x1-default-r001": (4, 1)}.items():
        hosts = json.loads((archive / f"results/{run_id}.prov.json").read_text())["hosts"]
        blocks = rank_blocks(hosts)
        # Every rank on a node of the cluster, `per_node` consecutive ranks on each of `count` nodes.
        assert len(blocks) == count and {name for name, _ in blocks} <= nodes, hosts
        assert [ranks for _, ranks in blocks] == [list(range(i * per_node, (i + 1) * per_node)) for i in range(count)]
        assert all(h["cores"] >= 1 and h["cores_online"] >= h["cores"] for h in hosts)
        row = runs[run_id]
        assert row["layout"] == "ok" and row["layout_detail"] == ""
        assert row["ranks_per_host"] == ";".join(f"{name}:{len(ranks)}" for name, ranks in blocks)
        assert row["hosts"] == ";".join(name for name, _ in blocks)
        assert row["oversubscribed"] == "no", "two CPUs per node, at most two processes"
        # The batch script ran on the first node of the job's allocation.
        first = blocks[0][0]
        assert f"starts on {first}" in (archive / f"logs/{run_id}.log").read_text()

    out = tmp_path / "analysis"
    analysis = bench.ok("analyze", archive, "--out", out, "--no-plots", timeout=300)
    assert analysis.stdout.strip().endswith("report.html")
    summary = read_csv(out / "summary.csv")
    assert {r["deployment"] for r in summary} == {"2x2", "4x1"}
    assert {r["power"] for r in summary} == {"cannot detect"}, "one run a side cannot give a small p"
    report = (out / "report.md").read_text()
    assert "**Layout.**" not in report and "**Oversubscribed.**" not in report


@pytest.mark.parametrize("library", LIBRARIES)
def test_a_launcher_that_ignores_the_deployment_is_a_layout_mismatch(slurm_bench, library, tmp_path):
    bench = slurm_bench
    good_env = f"slurm-{library}"
    bad_env = site_environment(tmp_path, library, *ALL_ON_ONE_NODE[library], name=f"one-node-{library}")
    archives = []
    for env in (good_env, bad_env):
        bench.ok("generate", "demo", "--env", env, "--set", "deployments=2x2", "--set", "nrun=1",
                 "--set", "nrep=3")
        bench.ok("submit", "demo", "--wait", timeout=300)
        archive, result = bench.archive("demo")
        archives.append((archive, result))
    (good, _), (bad, result) = archives
    status = bench.ok("status", "demo").stdout.splitlines()[2]
    assert " done " in status and "layout-mismatch,oversubscribed" in status
    assert "asked 2x2 (2 nodes x 2 processes), got 1 host instead of 2" in status
    [row] = read_csv(bad / "runs.csv")
    hosts = json.loads((bad / "results/2x2-default-r001.prov.json").read_text())["hosts"]
    assert [(h["ranks"]) for h in hosts] == ["0-3"] and hosts[0]["name"] in bench.slurm.node_names
    assert row["state"] == "done" and row["layout"] == "layout-mismatch" and row["oversubscribed"] == "yes"
    assert row["ranks_per_host"] == f"{hosts[0]['name']}:4"
    assert f"run 2x2-default-r001: layout-mismatch: asked 2x2" in result.stderr
    assert "runs oversubscribed" in result.stderr

    out = tmp_path / "analysis"
    left = bench.ok("analyze", good, bad, "--out", out, "--no-plots", timeout=300)
    assert "1 of 2 runs left out of the assessment" in left.stderr
    report = (out / "report.md").read_text()
    assert "**Layout.** 1 of 2 runs did not run as their deployment asks" in report
    assert "they are left out of the assessment" in report and "**Oversubscribed.** 1 of 2 runs" in report
    tests = read_csv(out / "tests.csv")
    assert {t["runs_a"] for t in tests} == {"1"}, "only the run that landed as asked"

    kept = bench.ok("analyze", good, bad, "--out", out, "--no-plots", "--include-mismatched", timeout=300)
    assert "assessed anyway" in kept.stderr
    assert {t["runs_a"] for t in read_csv(out / "tests.csv")} == {"2"}
    only_bad = bench("analyze", bad, "--out", tmp_path / "other", "--no-plots")
    assert only_bad.returncode == 2 and len(only_bad.stderr.splitlines()) == 1
    assert "is a layout-mismatch" in only_bad.stderr and "--include-mismatched" in only_bad.stderr


def test_ntasks_per_node_asks_slurm_for_the_layout(slurm_bench, tmp_path):
    bench = slurm_bench
    env = site_environment(tmp_path, "openmpi", "ntasks_per_node = no", "ntasks_per_node = yes")
    bench.ok("generate", "demo", "--env", env, "--set", "deployments=2x2", "--set", "nrun=1", "--set", "nrep=2")
    assert "#SBATCH --ntasks-per-node=2" in bench.workspace("demo").job("2x2-default-r001", 1).read_text()
    bench.ok("submit", "demo", "--wait", timeout=300)
    job = bench.ok("status", "demo").stdout.splitlines()[2].split()[4]
    shown = bench.slurm.run("scontrol", "show", "job", job, "--oneliner").stdout
    assert "NumNodes=2" in shown and re.search(r"NtasksPerN:B:S:C=2:", shown), shown
    assert bench.status("demo")["2x2-default-r001"][0] == "done"


def test_a_deployment_larger_than_the_partition_is_one_line(slurm_bench):
    bench = slurm_bench
    bench.ok("generate", "demo", "--env", "slurm-openmpi", "--set", "deployments=2x2,8x1", "--set", "nrun=1")
    refused = bench("submit", "demo", "--wait")
    assert refused.returncode == 2 and len(refused.stderr.splitlines()) == 1, refused.stderr
    assert refused.stderr.startswith("nbhbench: deployment 8x1 needs 8 nodes, but Slurm partition sim has 4")
    assert {state for state, _, _ in bench.status("demo").values()} == {"pending"}, "nothing was submitted"


def test_a_job_slurm_can_never_start_fails_fast_and_the_campaign_can_be_generated_again(slurm_bench):
    bench = slurm_bench
    run = "2x2-default-r001"
    # Two hours: more than the partition's MaxTime of an hour (PartitionTimeLimit).
    bench.ok("generate", "demo", "--env", "slurm-openmpi", "--set", "deployments=2x2", "--set", "nrun=1",
             "--set", "time_limit=2:00:00")
    bench.ok("submit", "demo")
    deadline = time.monotonic() + 30
    while "can never start" not in (line := bench.ok("status", "demo").stdout.splitlines()[2]):
        assert time.monotonic() < deadline, line
        time.sleep(0.5)
    assert line.split()[1:6] == ["pending", "0/30", "1", line.split()[4], "Slurm"], "no exit code for a job that has not run"
    # Slurm 22.05 says PartitionConfig at submission, PartitionTimeLimit after its first scheduling pass.
    assert re.search(r"Slurm can never start it: Partition(Config|TimeLimit) \(", line), line

    start = time.monotonic()
    failed = bench("submit", "demo", "--wait", timeout=120)
    assert time.monotonic() - start < 60
    assert failed.returncode == 1 and len(failed.stderr.splitlines()) == 1, failed.stderr
    assert re.match(rf"nbhbench: run {run}: Slurm can never start job \d+: Partition(Config|TimeLimit) ", failed.stderr)
    job = failed.stderr.split("job ")[1].split(":")[0]
    assert bench.slurm.run("squeue", "-h", "-j", job).stdout.strip() == "", "the job was cancelled"
    state, done, attempts = bench.status("demo")[run]
    assert (state, done, attempts) == ("failed", "0/30", 1)
    line = bench.ok("status", "demo").stdout.splitlines()[2]
    assert line.split()[5] == "Slurm", f"no exit code: the job never ran: {line}"

    again = bench.ok("generate", "demo", "--env", "slurm-openmpi", "--set", "deployments=2x2", "--set", "nrun=1")
    assert "replaced" in again.stdout and "had all failed without finishing an experiment" in again.stdout
    assert bench.status("demo")[run] == ("pending", "0/30", 0)


def test_generating_again_waits_for_a_job_that_may_still_run(slurm_bench, tmp_path):
    bench = slurm_bench
    held = site_environment(tmp_path, "openmpi", "sbatch = --exclusive", "sbatch = --exclusive\nsbatch = --hold")
    bench.ok("generate", "demo", "--env", held, "--set", "nrun=1")
    bench.ok("submit", "demo")
    line = bench.ok("status", "demo").stdout.splitlines()[2]
    assert " pending " in line and "Slurm: JobHeldUser" in line and line.split()[5] == "Slurm:", "no exit code"
    refused = bench("generate", "demo", "--env", held, "--set", "nrun=1")
    assert refused.returncode == 3 and "pending or running" in refused.stderr
    subprocess.run(["scancel", line.split()[4]], env=bench.env, check=True)
