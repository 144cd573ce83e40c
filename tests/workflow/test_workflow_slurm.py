"""The workflow through the tests' real Slurm (tests/workflow/slurm_cluster.py),
one node a job: sbatch with Open MPI and with MPICH, archive and verify; a
job that hits its Slurm time limit, then --resume; a job sbatch refuses.
Several nodes: test_workflow_multinode.py."""
import json
import math
import subprocess
import sys

import pytest

from workflow_testing import ROOT, SLOW, complete_experiments, read_csv, whole_rounds

RUN = "1x4-default-r001"


@pytest.mark.parametrize("env, library", [("slurm-openmpi", "openmpi"), ("slurm-mpich", "mpich")])
def test_campaign_through_sbatch_archived_and_verified(slurm_bench, env, library):
    bench = slurm_bench
    bench.ok("generate", "demo", "--env", env, "--set", "nrun=2", "--set", "nrep=3")
    job = bench.workspace("demo").job(RUN, 1).read_text()
    assert "#SBATCH --ntasks=4" in job and "#SBATCH --time=00:10:00" in job
    submitted = bench.ok("submit", "demo", "--wait", timeout=240)
    assert "submitted job" in submitted.stdout and "demo: 2 runs: 2 done" in submitted.stdout
    status = bench.ok("status", "demo").stdout
    job_ids = [line.split()[4] for line in status.splitlines()[2:]]
    assert all(j.isdigit() for j in job_ids) and len(set(job_ids)) == 2
    records = [json.loads(p.read_text()) for p in sorted(bench.workspace("demo").attempts.glob("*.json"))]
    assert [r["state"] for r in records] == ["done", "done"]

    archive, _ = bench.archive("demo")
    assert archive.name.startswith(f"demo-{library}-")
    runs = read_csv(archive / "runs.csv")
    assert [r["job_id"] for r in runs] == job_ids
    assert {r["state"] for r in runs} == {"done"} and {r["library"] for r in runs} == {library}
    assert {r["hosts"] for r in runs} <= set(bench.slurm.node_names) and {r["layout"] for r in runs} == {"ok"}
    prov = json.loads((archive / f"results/{RUN}.prov.json").read_text())
    assert prov["environment"]["SLURM_JOB_ID"] == job_ids[0]
    assert (archive / f"results/{RUN}.cvars.csv").stat().st_size > 1000, "MCA/CVAR values in force"
    assert "Open MPI" in runs[0]["library_version"] or "MPICH" in runs[0]["library_version"]
    meta = json.loads((archive / "archive.json").read_text())
    assert meta["scheduler"] == "slurm" and "slurm" in meta["slurm_version"]
    assert "SBATCH" in (archive / f"jobs/{RUN}.a1.sh").read_text()
    bench.ok("archive", "--verify", archive)
    # Once slurmctld forgets a job, its final state comes from the job
    # completion file (JobCompType=jobcomp/filetxt, no slurmdbd needed).
    assert slurm_states(bench, "jobcomp_jobs", job_ids) == {j: ("COMPLETED", 0, "") for j in job_ids}


def slurm_states(bench, source, job_ids):
    """What workflow/slurm.py's SOURCE says about JOB_IDS, asked under the test Slurm."""
    code = f"import json; from workflow import slurm; print(json.dumps(slurm.{source}({job_ids!r})))"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                            env=dict(bench.env, PYTHONPATH=str(ROOT)))
    return {job: tuple(state) for job, state in json.loads(result.stdout).items()}


def test_a_job_that_hits_its_time_limit_keeps_its_rounds_and_resume_completes_it(slurm_bench):
    # One process, so busy work takes about what it says; 200 s of it in 10
    # rounds of 20 s: more than Slurm's 1-minute limit plus its 30-second
    # check interval even when the countdown runs at 0.45x its calibrated
    # time (calibrated while the core was shared or the VM's host in a slow
    # phase, run alone: docs/examples/progress; 120 s of it finished within
    # the limit once).
    bench = slurm_bench
    nrep = math.ceil(200 / (40 * 0.020))
    bench.ok("generate", SLOW, "--env", "slurm-openmpi", "--set", "deployments=1x1",
             "--set", f"nrep={nrep}", "--set", "time_limit=1", "--set", "blocks=10", "--set", "warmup=0")
    run = "1x1-default-r001"
    first = bench("submit", "slow", "--wait", timeout=400)
    assert first.returncode == 1 and f"{run}: timeout" in first.stdout, first.stdout + first.stderr
    state, done, _ = bench.status("slow")[run]
    assert state == "timeout" and int(done.split("/")[0]) < 40
    results = bench.workspace("slow").prefix(run, 1).with_suffix(".a1.results.csv")
    kept = whole_rounds(results, nrep, 10)
    assert 0 < len(kept) < 400, "the attempt kept whole rounds of its experiments, and only whole ones"
    assert "DUE TO TIME LIMIT" in bench.workspace("slow").log(run, 1).read_text()

    for _ in range(8):  # each attempt measures the rounds no earlier one finished
        if bench("submit", "slow", "--resume", "--wait", timeout=400).returncode == 0:
            break
    state, done, attempts = bench.status("slow")[run]
    assert (state, done) == ("done", "40/40") and attempts >= 2
    archive, _ = bench.archive("slow")
    row = read_csv(archive / "runs.csv")[0]
    assert row["state"] == "done" and len(row["job_id"].split(";")) == attempts
    assert len(complete_experiments(archive / f"results/{run}.results.csv", nrep)) == 40
    merged = whole_rounds(archive / f"results/{run}.results.csv", nrep, 10)
    assert all(merged[key] == rows for key, rows in kept.items()), "the first attempt's whole rounds are kept"
    first_attempt = json.loads((archive / f"attempts/{run}.a1.json").read_text())
    assert first_attempt["state"] == "timeout"
    job = row["job_id"].split(";")[0]
    assert slurm_states(bench, "jobcomp_jobs", [job])[job][0] == "TIMEOUT"


def test_a_job_slurm_refuses_is_one_line(slurm_bench, tmp_path):
    bench = slurm_bench
    site = tmp_path / "site-slurm"  # a site's own environment file, with a partition
    site.write_text((ROOT / "env" / "slurm-openmpi").read_text()
                    .replace("partition =", "partition = nosuch", 1))
    bench.ok("generate", "demo", "--env", site, "--set", "nrun=1")
    assert "#SBATCH --partition=nosuch" in bench.workspace("demo").job(RUN, 1).read_text()
    refused = bench("submit", "demo")
    assert refused.returncode == 1 and refused.stderr.count("\n") == 1
    assert "sbatch refused 1x4-default-r001.a1.sh" in refused.stderr and "partition" in refused.stderr
    assert bench.status("demo")[RUN][0] == "pending", "nothing was submitted"
