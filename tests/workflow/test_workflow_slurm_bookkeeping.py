"""What submit, status and archive know of Slurm jobs when things go wrong
around them, on the tests' real Slurm (slurm_cluster.py): a submit killed,
or stopped by Ctrl-C, while sbatch hands a job over leaves no job untracked
and submits no attempt twice (the record is written before sbatch, with the
job's name, and completed from Slurm by name); a run is done only once its
job has ended, not when its last row is written; a bad NBH_POLL_SECONDS is
refused before anything is submitted."""
import contextlib
import json
import os
import shutil
import signal
import subprocess

import pytest

from child_signals import default_sigint
from workflow_testing import ROOT, read_csv, wait_until

RUNS = ("1x4-default-r001", "1x4-default-r002")

# sbatch, slowed down before or after the real one (only when it submits:
# `sbatch --version` is asked by archive), so that a test can stop the
# submit while sbatch is at work. It runs in a session of its own (submit
# starts it so): the test ends it by the PID it leaves.
SLOW_SBATCH = """#!/bin/bash
case " $* " in *" --parsable "*) ;; *) exec "$NBH_TEST_SBATCH" "$@" ;; esac
echo $$ > "$NBH_TEST_SBATCH_DIR/pid"
sleep "${NBH_TEST_SBATCH_BEFORE:-0}"
answer=$("$NBH_TEST_SBATCH" "$@")
status=$?
echo "$answer" > "$NBH_TEST_SBATCH_DIR/answer"
sleep "${NBH_TEST_SBATCH_AFTER:-0}"
echo "$answer"
exit "$status"
"""


@pytest.fixture
def slow_sbatch(slurm_bench, tmp_path):
    """slow_sbatch(before=0, after=0): the bench's environment with sbatch
    slowed down, and the folder where it leaves its PID and answer."""
    folder = tmp_path / "sbatch"
    folder.mkdir()
    (folder / "sbatch").write_text(SLOW_SBATCH)
    (folder / "sbatch").chmod(0o755)
    real = shutil.which("sbatch")

    def slowed(before=0, after=0):
        return dict(slurm_bench.env, PATH=f"{folder}:{os.environ['PATH']}", NBH_TEST_SBATCH=real,
                    NBH_TEST_SBATCH_DIR=str(folder), NBH_TEST_SBATCH_BEFORE=str(before),
                    NBH_TEST_SBATCH_AFTER=str(after))
    yield slowed, folder
    end_sbatch(folder)


def end_sbatch(folder):
    """Ends the slowed sbatch and its sleep (its session, whose leader it is)."""
    with contextlib.suppress(OSError, ValueError):
        pid = int((folder / "pid").read_text())
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
        os.kill(pid, signal.SIGKILL)


def start_submit(bench, env, *args):
    return subprocess.Popen([str(ROOT / "nbhbench"), "submit", "demo", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env,
                            preexec_fn=default_sigint)


def jobs_of(bench):
    """{job id: job name} of the jobs Slurm knows whose output goes to this test's workspace."""
    out = subprocess.run(["scontrol", "show", "job", "--oneliner"], capture_output=True, text=True, check=True,
                         env=bench.env).stdout
    jobs = {}
    for line in out.splitlines():
        fields = dict(word.split("=", 1) for word in line.split() if "=" in word)
        if fields.get("StdOut", "").startswith(str(bench.work)):
            jobs[fields["JobId"]] = fields["JobName"]
    return jobs


def record(bench, run):
    return json.loads(bench.workspace("demo").record(run, 1).read_text())


def generate(bench):
    bench.ok("generate", "demo", "--env", "slurm-openmpi", "--set", "nrun=2", "--set", "nrep=2", "--set", "aa=no",
             "--set", "msize=64")


def test_a_submit_killed_while_sbatch_answers_leaves_the_job_recorded(slurm_bench, slow_sbatch):
    """Killed (SIGKILL: no handler runs) after Slurm took the job, before
    sbatch's answer was recorded: status finds the job by its name and
    records its id; submit sends no second job for the attempt."""
    bench = slurm_bench
    slowed, folder = slow_sbatch
    generate(bench)
    submit = start_submit(bench, slowed(after=60))
    wait_until(lambda: (folder / "answer").exists(), 60, "Slurm took the first job")
    submit.kill()
    submit.communicate(timeout=30)
    job = (folder / "answer").read_text().strip()
    intent = record(bench, RUNS[0])
    assert "job_id" not in intent and intent["job_name"].startswith(f"nbh-demo-{RUNS[0]}.a1.")

    status = bench.status("demo")
    assert status[RUNS[0]][2] == 1 and status[RUNS[1]] == ("pending", "0/8", 0)
    assert record(bench, RUNS[0])["job_id"] == job, "status recorded the job Slurm knows by the attempt's name"
    waited = bench.ok("submit", "demo", "--wait", timeout=240)
    assert f"{RUNS[0]}: submitted" not in waited.stdout and f"{RUNS[1]}: submitted job" in waited.stdout
    assert "demo: 2 runs: 2 done" in waited.stdout
    jobs = jobs_of(bench)
    assert len(jobs) == 2 and job in jobs, f"one job per run: {jobs}"
    archive, _ = bench.archive("demo")
    assert {r["run_id"]: r["job_id"] for r in read_csv(archive / "runs.csv")}[RUNS[0]] == job


def test_a_submit_killed_before_slurm_took_the_job_submits_it_again(slurm_bench, slow_sbatch):
    """Killed after the record was written, before sbatch reached Slurm: Slurm
    knows no job of the attempt's name and the job left no trace, so status
    removes the record and the next submit submits the run (once)."""
    bench = slurm_bench
    slowed, folder = slow_sbatch
    generate(bench)
    submit = start_submit(bench, slowed(before=60))
    wait_until(lambda: (folder / "pid").exists(), 60, "sbatch was started")
    submit.kill()
    submit.communicate(timeout=30)
    end_sbatch(folder)  # sbatch dies before it reached Slurm
    assert "job_name" in record(bench, RUNS[0]) and jobs_of(bench) == {}

    assert bench.status("demo") == {run: ("pending", "0/8", 0) for run in RUNS}
    assert not bench.workspace("demo").record(RUNS[0], 1).exists()
    waited = bench.ok("submit", "demo", "--wait", timeout=240)
    assert waited.stdout.count("submitted job") == 2 and "demo: 2 runs: 2 done" in waited.stdout
    jobs = jobs_of(bench)
    assert len(jobs) == 2 and {record(bench, run)["job_id"] for run in RUNS} == set(jobs)


def test_a_submit_killed_while_sbatch_is_still_at_work_leaves_no_untracked_job(slurm_bench, slow_sbatch):
    """Killed (SIGKILL) while sbatch still talks to the controller (here: 15 s
    before the real sbatch): sbatch outlives the submit, so Slurm knows no
    job yet and the job has left no trace. The intent holds sbatch's pid and
    stays while sbatch runs; once the job is made, status records it, and
    the next submit sends no second job for the attempt. (Before, status
    removed the intent and the next submit sent the run again: two jobs for
    one attempt, the first untracked.)"""
    bench = slurm_bench
    slowed, folder = slow_sbatch
    generate(bench)
    submit = start_submit(bench, slowed(before=15))
    wait_until(lambda: (folder / "pid").exists(), 60, "sbatch was started")
    submit.kill()
    submit.communicate(timeout=30)
    sbatch_pid = int((folder / "pid").read_text())
    intent = record(bench, RUNS[0])
    assert "job_id" not in intent and intent["sbatch_pid"] == sbatch_pid
    assert not (folder / "answer").exists() and jobs_of(bench) == {}, "Slurm knows no job yet"

    said = bench.ok("status", "demo").stdout
    assert f"being submitted (job {intent['job_name']}): its submit was stopped, its sbatch (pid {sbatch_pid})" in said
    assert bench.workspace("demo").record(RUNS[0], 1).exists(), "the intent stays while its sbatch runs"
    wait_until(lambda: (folder / "answer").exists(), 60, "Slurm took the job")
    job = (folder / "answer").read_text().strip()
    wait_until(lambda: "job_id" in record(bench, RUNS[0]) or not bench.status("demo"), 60,
               "status recorded the job once sbatch ended")
    assert record(bench, RUNS[0])["job_id"] == job
    waited = bench.ok("submit", "demo", "--wait", timeout=240)
    assert f"{RUNS[0]}: submitted" not in waited.stdout and "demo: 2 runs: 2 done" in waited.stdout
    jobs = jobs_of(bench)
    assert len(jobs) == 2 and job in jobs, f"one job per run: {jobs}"


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGHUP], ids=["ctrl-c", "lost-terminal"])
def test_ctrl_c_while_sbatch_answers_records_the_job_then_stops(slurm_bench, slow_sbatch, stop):
    """Ctrl-C (SIGINT to the submit), or a lost terminal (SIGHUP), while sbatch
    is at work: the submit waits for sbatch's answer, records the job, and
    stops with one line saying what was submitted; the next submit submits
    the rest."""
    bench = slurm_bench
    slowed, folder = slow_sbatch
    generate(bench)
    submit = start_submit(bench, slowed(after=3))
    wait_until(lambda: (folder / "pid").exists(), 60, "sbatch was started")
    submit.send_signal(stop)
    _, err = submit.communicate(timeout=90)
    job = (folder / "answer").read_text().strip()
    assert submit.returncode == 130, err
    assert err.strip() == (f"nbhbench: interrupted: 1 of 2 runs submitted (jobs {job}); every submitted job is "
                           "recorded; the others go with: nbhbench submit demo")
    assert record(bench, RUNS[0])["job_id"] == job
    waited = bench.ok("submit", "demo", "--wait", timeout=240)
    assert waited.stdout.count("submitted job") == 1 and "demo: 2 runs: 2 done" in waited.stdout
    assert len(jobs_of(bench)) == 2


def test_a_run_is_done_only_once_its_job_has_ended(slurm_bench, tmp_path):
    """Every row written and the job script's exit code too, while the job
    still runs (here: an EXIT trap of the job script that takes 20 s and
    writes a last line): status says running, archive refuses, and submit
    --wait returns only after the job ended, with its last line in the log
    and its exit code in runs.csv."""
    bench = slurm_bench
    site = tmp_path / "site-slurm"
    site.write_text((ROOT / "env" / "slurm-openmpi").read_text() +
                    "setup = trap 'sleep 20; echo nbhbench-test: the last line of the job' EXIT\n")
    bench.ok("generate", "demo", "--env", site, "--set", "nrun=1", "--set", "nrep=2", "--set", "aa=no",
             "--set", "msize=64")
    bench.ok("submit", "demo")
    workspace = bench.workspace("demo")
    run = RUNS[0]
    wait_until(lambda: workspace.exit_file(run, 1).exists(), 120, "the job script wrote its exit code")
    shown = bench.ok("status", "demo").stdout
    assert bench.status("demo")[run][:2] == ("running", "8/8"), shown
    assert "the job script has ended; Slurm has not ended the job yet" in shown
    refused = bench("archive", "demo")
    assert refused.returncode == 1 and "running" in refused.stderr, refused.stderr
    assert "state" not in record(bench, run)

    waited = bench.ok("submit", "demo", "--wait", timeout=240)
    assert "demo: 1 runs: 1 done" in waited.stdout
    assert "nbhbench-test: the last line of the job" in workspace.log(run, 1).read_text()
    archive, _ = bench.archive("demo")
    [row] = read_csv(archive / "runs.csv")
    assert (row["state"], row["exit_code"]) == ("done", "0")
    assert "nbhbench-test: the last line of the job" in (archive / f"logs/{run}.log").read_text()


def test_a_bad_poll_interval_is_refused_before_anything_is_submitted(slurm_bench):
    bench = slurm_bench
    generate(bench)
    refused = subprocess.run([str(ROOT / "nbhbench"), "submit", "demo", "--wait"], capture_output=True, text=True,
                             timeout=60, env=dict(bench.env, NBH_POLL_SECONDS="abc"))
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == "nbhbench: NBH_POLL_SECONDS: 'abc' is not a number of seconds\n"
    assert bench.status("demo") == {run: ("pending", "0/8", 0) for run in RUNS} and jobs_of(bench) == {}
