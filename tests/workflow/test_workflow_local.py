"""The workflow on this machine (scheduler local), end to end, with faults:
a killed rank, a time limit, a damaged archive."""
import json
import os
import signal

from workflow import kernel_draws
from workflow_testing import HERE, SLOW, complete_experiments, read_csv, wait_until

RUN = "1x4-default-r001"
SLOW_RUN = "1x2-default-r001"


def descendants(pid):
    """PIDs of every process below PID, with their command names."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    text = f.read()
            except OSError:
                continue
            name = text[text.index("(") + 1:text.rindex(")")]
            ppid = int(text.rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append((int(entry), name))
    found, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child[0])
    return found


def test_local_campaign_end_to_end(bench):
    bench.ok("generate", "demo", "--env", "local-openmpi", "--set", "nrun=2", "--set", "nrep=3", "--set", "blocks=3")
    submitted = bench.ok("submit", "demo")
    assert "run 1/2 1x4-default-r001: 30/30 experiments" in submitted.stdout
    assert "ETA" in submitted.stdout and "demo: 2 runs: 2 done" in submitted.stdout
    assert bench.status("demo") == {"1x4-default-r001": ("done", "30/30", 1),
                                    "1x4-default-r002": ("done", "30/30", 1)}
    again = bench.ok("submit", "demo")
    assert "nothing to submit" in again.stdout, "a second submit leaves submitted runs alone"

    archive, result = bench.archive("demo")
    assert archive.parent == bench.archives and archive.name.startswith("demo-openmpi-")
    for name in ("archive.json", "MANIFEST.sha256", "experiments.csv", "runs.csv", "param_sets.csv",
                 "campaign/campaign.conf", "campaign/experiments.py", "campaign/assessment.conf",
                 "env/local-openmpi", f"inputs/{RUN}.csv", f"results/{RUN}.results.csv",
                 f"results/{RUN}.prov.json", f"results/{RUN}.cvars.csv", f"logs/{RUN}.log",
                 f"jobs/{RUN}.a1.sh", f"attempts/{RUN}.a1.json"):
        assert (archive / name).is_file(), name
    runs = read_csv(archive / "runs.csv")
    assert list(runs[0]) == ["run_id", "deployment", "nodes", "ppn", "nprocs", "run", "param_set",
                             "library", "library_version", "seed", "state", "experiments_done",
                             "experiments_total", "job_id", "exit_code", "hosts", "rejected_rows", "layout", "layout_detail",
                             "ranks_per_host", "cores_per_host", "oversubscribed", "reorder_experiments",
                             "reorder_changed", "round", "interleave", "slot", "launch_order"]
    assert {r["round"] for r in runs} == {"1"}, "a campaign of one round"
    assert [(r["interleave"], r["slot"], r["launch_order"]) for r in runs] == [("", "", "1"), ("", "", "2")], \
        "one parameter set: nothing interleaved; the runs started in their order"
    assert runs[0]["state"] == "done" and runs[0]["experiments_done"] == "30" and runs[0]["nprocs"] == "4"
    # 1x4 on this machine: one host, as asked; four processes on its cores (more than this machine has).
    assert runs[0]["layout"] == "ok" and runs[0]["ranks_per_host"] == f"{runs[0]['hosts']}:4"
    cores = len(os.sched_getaffinity(0))
    assert runs[0]["oversubscribed"] == ("yes" if cores < 4 else "no")
    assert runs[0]["reorder_experiments"] == "", "the demo has no reorder = 1 experiment"
    assert runs[0]["library_version"].startswith("Open MPI v") and runs[0]["hosts"]
    assert runs[0]["seed"] == read_csv(archive / f"inputs/{RUN}.csv")[0]["seed"]
    assert len(complete_experiments(archive / f"results/{RUN}.results.csv", 3)) == 30
    # Each round's measured order is kept (RUN.order.csv), and it is the
    # order NBH_ROUND_ORDER_FORMULA gives for the run's input and seed.
    order = read_csv(archive / f"results/{RUN}.order.csv")
    inputs = read_csv(archive / f"inputs/{RUN}.csv")
    for round_number in (1, 2, 3):
        kept = [int(r["id"]) for r in sorted((r for r in order if r["round"] == str(round_number)),
                                             key=lambda r: int(r["position"]))]
        assert kept == kernel_draws.round_order(inputs, round_number), f"round {round_number}"
        assert {r["attempt"] for r in order} == {"1"}
        assert [int(r["position"]) for r in order if r["round"] == str(round_number)] == list(range(1, 31))
    experiments = read_csv(archive / "experiments.csv")
    assert "seed" not in experiments[0] and len(experiments) == 30
    assert read_csv(archive / "param_sets.csv") == [{"param_set": "default", "name": "", "value": ""}]
    meta = json.loads((archive / "archive.json").read_text())
    assert meta["campaign"] == "demo" and meta["library"] == "openmpi" and meta["scheduler"] == "local"
    assert len(meta["git_commit"]) >= 40
    listed = {line.split("  ", 1)[1] for line in (archive / "MANIFEST.sha256").read_text().splitlines()}
    files = {p.relative_to(archive).as_posix() for p in archive.rglob("*") if p.is_file()}
    assert listed == files - {"MANIFEST.sha256"}
    verified = bench.ok("archive", "--verify", archive)
    assert "intact" in verified.stdout

    second, _ = bench.archive("demo")
    assert second != archive and (archive / "MANIFEST.sha256").is_file(), "archives are never overwritten"


def msizes(count):
    """The first COUNT experiments of the slow campaign, as a --set item."""
    return "msize=" + ",".join(str(8 * k) for k in range(1, count + 1))


def test_a_killed_rank_keeps_finished_experiments_and_resume_completes_the_run(bench):
    bench.ok("generate", SLOW, "--set", "nrep=5", "--set", msizes(20))
    workspace = bench.workspace("slow")
    results = workspace.prefix(SLOW_RUN, 1).with_suffix(".a1.results.csv")
    submit = bench.start("submit", "slow")
    wait_until(lambda: results.is_file() and len(complete_experiments(results, 5)) >= 3, 60,
               "three experiments finished")
    # The ranks stopped at once: the 17 experiments left take some 2 s, which
    # a loaded machine's status and archive commands below can outlast.
    ranks = [pid for pid, name in descendants(submit.pid) if name == "nbh-kernel"]
    assert len(ranks) == 2
    for rank in ranks:
        os.kill(rank, signal.SIGSTOP)
    assert bench.status("slow")[SLOW_RUN][0] == "running"
    busy = bench("archive", "slow")
    assert busy.returncode == 1 and "still pending or running" in busy.stderr
    os.kill(ranks[1], signal.SIGKILL)
    os.kill(ranks[0], signal.SIGCONT)
    _, err = submit.communicate(timeout=60)
    assert submit.returncode == 1

    kept = complete_experiments(results, 5)
    state, done, attempts = bench.status("slow")[SLOW_RUN]
    assert state == "failed" and done == f"{len(kept)}/20" and len(kept) >= 3 and attempts == 1
    partial, result = bench.archive("slow")
    assert f"{SLOW_RUN} failed ({len(kept)}/20)" in result.stderr
    assert read_csv(partial / "runs.csv")[0]["state"] == "failed"

    bench.ok("submit", "slow", "--resume")
    assert bench.status("slow")[SLOW_RUN] == ("done", "20/20", 2)
    rerun = {row["id"] for row in read_csv(workspace.input(SLOW_RUN, 2))}
    assert rerun == {str(i) for i in range(1, 21)} - kept, "the resumed attempt reran only what was missing"

    archive, _ = bench.archive("slow")
    merged = complete_experiments(archive / f"results/{SLOW_RUN}.results.csv", 5)
    assert merged == {str(i) for i in range(1, 21)}
    assert len(read_csv(archive / f"results/{SLOW_RUN}.results.csv")) == 100
    run = read_csv(archive / "runs.csv")[0]
    assert (run["state"], run["experiments_done"]) == ("done", "20")
    log = (archive / f"logs/{SLOW_RUN}.log").read_text()
    assert "attempt 1" in log and "attempt 2" in log
    assert json.loads((archive / f"results/{SLOW_RUN}.prov.json").read_text())["experiments_done"] == 20
    bench.ok("archive", "--verify", archive)


def test_a_local_time_limit_times_out_and_resume_completes_the_run(bench):
    # 16 x 20 x 20 ms: at least 6.4 s of busy work, twice the 3-second limit (with 3.2 s, a run
    # could end between two of the limit's half-second checks, at 3.3 s, and be done).
    bench.ok("generate", SLOW, "--set", "time_limit=0:03", "--set", "nrep=20", "--set", msizes(16))
    first = bench("submit", "slow")
    assert first.returncode == 1 and "timeout" in first.stdout
    state, done, _ = bench.status("slow")[SLOW_RUN]
    assert state == "timeout" and done != "16/16"
    for _ in range(30):  # each attempt finishes more; every one keeps what it finished
        if bench("submit", "slow", "--resume").returncode == 0:
            break
    state, done, attempts = bench.status("slow")[SLOW_RUN]
    assert (state, done) == ("done", "16/16") and attempts >= 2


def test_verify_names_the_damaged_file(bench):
    bench.ok("generate", "demo", "--env", "local-openmpi", "--set", "nrun=1", "--set", "nrep=2")
    bench.ok("submit", "demo")
    archive, _ = bench.archive("demo")
    results = archive / f"results/{RUN}.results.csv"
    os.chmod(results, 0o644)
    with open(results, "a") as f:
        f.write("1,99,0.5\n")
    (archive / f"logs/{RUN}.log").unlink()
    (archive / "notes.txt").write_text("added later\n")
    damaged = bench("archive", "--verify", archive)
    assert damaged.returncode == 1
    assert (f"results/{RUN}.results.csv: its SHA-256 and {archive}/MANIFEST.sha256:" in damaged.stderr
            and "disagree (the file or the manifest was changed after archiving)" in damaged.stderr)
    assert f"logs/{RUN}.log: missing" in damaged.stderr
    assert "notes.txt: not in MANIFEST.sha256" in damaged.stderr
    assert len(damaged.stderr.splitlines()) == 3


def test_generating_again_never_destroys_unarchived_results(bench):
    bench.ok("generate", "demo", "--env", "local-openmpi", "--set", "nrun=1", "--set", "nrep=2")
    bench.ok("submit", "demo")
    refused = bench("generate", "demo", "--env", "local-openmpi")
    assert refused.returncode == 3 and "not archived" in refused.stderr
    assert bench.workspace("demo").prefix(RUN, 1).with_suffix(".a1.results.csv").is_file()
    bench.archive("demo")
    bench.ok("generate", "demo", "--env", "local-openmpi", "--set", "nrun=1")
    assert bench.status("demo")[RUN][0] == "pending"


def test_mpich_locally(bench):
    bench.ok("generate", "demo", "--env", "local-mpich", "--set", "nrun=1", "--set", "nrep=3")
    bench.ok("submit", "demo")
    archive, _ = bench.archive("demo")
    run = read_csv(archive / "runs.csv")[0]
    assert run["library"] == "mpich" and run["state"] == "done"
    assert "LD_PRELOAD" in json.loads((archive / f"results/{RUN}.prov.json").read_text())["environment"]


def test_a_campaign_whose_runs_all_failed_can_be_generated_again(bench):
    bench.ok("generate", HERE / "campaigns" / "typo")
    assert bench("submit", "typo").returncode == 1
    again = bench.ok("generate", HERE / "campaigns" / "typo")
    assert "replaced" in again.stdout and "its 1 submitted run had all failed without finishing an experiment" \
        in again.stdout
    assert list(bench.status("typo").values()) == [("pending", "0/1", 0)]


def test_a_misspelt_library_parameter_stops_the_run_with_its_name(bench):
    bench.ok("generate", HERE / "campaigns" / "typo")
    result = bench("submit", "typo")
    assert result.returncode == 1
    complaint = ("nbh-kernel: library parameter 'coll_tuned_alltoall_intermedate_msg' is unknown to this "
                 "library (none of its")
    assert complaint in result.stdout
    assert "did you mean 'coll_tuned_alltoall_intermediate_msg'?" in result.stdout
    [(state, done, _)] = bench.status("typo").values()
    assert (state, done) == ("failed", "0/1")
