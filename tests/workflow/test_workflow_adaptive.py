"""Adaptive campaigns end to end with the real kernel (SPEC 7.5): a PMPI
tool (pmpi_slowdown.c) slows MPI_Neighbor_alltoall with MPI_INT at 1 KiB in
every run and at 4 KiB in every fourth run; campaigns/adaptive compares int
with byte at four sizes in rounds (nrun 7, rounds of 3, up to 13). The
slowed cell is violated at the first look and measured no more; the
untouched ones hold; the sometimes-slow one is open at the first look, then
violated or open, as the load lets its untouched rounds scatter. Locally (interrupted in round 2 and resumed) with Open MPI, through
the tests' Slurm with MPICH; archive and analyze take the rounds."""
import json
import re
import signal

import pytest

from workflow_testing import HERE, ROOT, read_csv, wait_until

pytestmark = pytest.mark.quiet   # timings decide: run alone (tests/run)

CAMPAIGN = HERE / "campaigns" / "adaptive"
EVERY_RUN, SOME_RUNS, UNTOUCHED = 1024, 4096, {256, 16384}


def planted(library):
    tool = ROOT / "build" / library / "libnbh-slowdown.so"
    return [f"--set=launch_env={v}" for v in (f"LD_PRELOAD={tool}", "NBH_SLOWDOWN_OP=neighbor_alltoall",
                                              "NBH_SLOWDOWN_DATATYPE=int", f"NBH_SLOWDOWN_MSIZES={EVERY_RUN}",
                                              f"NBH_SLOWDOWN_SOMETIMES_MSIZES={SOME_RUNS}", "NBH_SLOWDOWN_US=20000")]


def ids_of_sizes(workspace, sizes):
    return {int(e["id"]) for e in workspace.experiments() if int(e["msize"]) in sizes}


def input_ids(workspace, run_id):
    return {int(row["id"]) for row in read_csv(workspace.input(run_id, 1))}


def test_local_rounds_interrupted_resumed_archived_and_analyzed(bench, tmp_path):
    bench.ok("generate", CAMPAIGN, "--env", "local-openmpi", *planted("openmpi"))
    workspace = bench.workspace("adaptive")
    # Stopped in round 2 (its first run has started), as Ctrl-C stops it.
    submit = bench.start("submit", "adaptive")
    wait_until(lambda: workspace.record("1x4-default-r008", 1).is_file(), 120, "round 2 started")
    submit.send_signal(signal.SIGINT)
    out, err = submit.communicate(timeout=60)
    assert submit.returncode == 130, out + err
    # The slowed cell's 7 runs reach the first look's boundary (7.3e-6: the two-level t over 7 runs at 14
    # or more) where the load lets its runs agree; else a later look decides it.
    first = re.search(r"look after round 1: 4 tests: ([01]) violated", out)
    assert first, out
    early = first.group(1) == "1"
    assert "round 2: 3 runs of " in out and "interrupted: run 1x4-default-r0" in err
    status = bench.ok("status", "adaptive").stdout
    assert "adaptive: round 2 of at most 3" in status and f"after round 1: 4 tests: {first.group(1)} violated" in status

    resumed = bench.ok("submit", "adaptive", "--resume", timeout=300)
    assert "look after round 2" in resumed.stdout
    # The sometimes-slow cell (runs 1, 5, 9 and 13 slowed): open after round 1; after round 2 (10 runs, 3
    # of them slowed) and round 3 (13, 4 slowed) open or violated, as the load lets the untouched runs
    # scatter; a violation ends the campaign after round 2 (no test open).
    ended = re.search(r"adaptive: (budget spent: 1 tests open|done: no test open) after round ([23])",
                      resumed.stdout)
    assert ended, resumed.stdout
    last = int(ended.group(2))
    assert last == 3 or ended.group(1).startswith("done"), resumed.stdout
    record = json.loads((workspace.path / "adaptive.json").read_text())
    assert [look["round"] for look in record["looks"]] == list(range(1, last + 1))
    assert (record["looks_planned"], record["rule"], record["hold_rule"]) == (3, "obrien-fleming", "pocock")
    # O'Brien-Fleming-type: the first look (7 of 13 runs) at 2 (1 - Phi(3.2905 / sqrt(7 / 13))) = 7.3e-6, which
    # the two-level test over 7 runs reaches at t >= 14 (6 degrees of freedom): the slowed cell's runs agree so.
    assert record["p_first"] == pytest.approx(7.3e-6, rel=0.05)
    assert all(look["p_look"] < look_next["p_look"] for look, look_next in zip(record["looks"], record["looks"][1:])), \
        "later looks spend more"

    # Rounds 2 and 3: new runs r008..r013 holding exactly what the look before them found open.
    runs = workspace.runs()
    nruns = 7 + 3 * (last - 1)
    assert [r["run_id"] for r in runs] == [f"1x4-default-r{k:03d}" for k in range(1, nruns + 1)]
    assert [r["round"] for r in runs] == (["1"] * 7 + ["2"] * 3 + ["3"] * 3)[:nruns]
    for number, first in ((2, 8), (3, 11))[:last - 1]:
        needed = {int(row["id"]) for row in read_csv(workspace.path / "looks" / str(number - 1) / "needed.csv")}
        for run in range(first, first + 3):
            assert input_ids(workspace, f"1x4-default-r{run:03d}") == needed
        if early:
            assert not needed & ids_of_sizes(workspace, {EVERY_RUN}), "the violated cell is measured no more"
        assert needed >= ids_of_sizes(workspace, {SOME_RUNS}), "the undecided cell in every round"

    archive, _ = bench.archive("adaptive")
    assert (archive / "adaptive.json").is_file() and (archive / "looks" / str(last) / "tests.csv").is_file()
    assert [r["round"] for r in read_csv(archive / "runs.csv")] == [r["round"] for r in runs]
    out = tmp_path / "analysis"
    bench.ok("analyze", archive, "--out", out, "--no-plots")
    tests = {int(t["msize"]): t for t in read_csv(out / "tests.csv")}
    every = tests[EVERY_RUN]
    assert every["decision"] == "violated" and (every["decided_round"] == "1") == early, every
    if early:
        assert every["look_decisions"] == " ".join(["violated"] * last)
    if early:
        assert float(every["p_look"]) == pytest.approx(record["p_first"], rel=1e-3), \
            "measured no more after round 1: its one look"
    assert (every["runs_a"] == "7") == early and tests[SOME_RUNS]["runs_a"] == str(nruns), "unequal run counts"
    sometimes = tests[SOME_RUNS]
    if ended.group(1).startswith("budget"):
        assert (sometimes["decision"], sometimes["decided_round"]) == ("open", ""), sometimes
        counts = ("1", "2", "1")
    else:
        assert (sometimes["decision"], sometimes["decided_round"]) == ("violated", str(last)), sometimes
        counts = ("2", "2", "0")
    assert sometimes["look_decisions"].split()[:last - 1] == ["open"] * (last - 1)
    assert {tests[m]["decision"] for m in UNTOUCHED} == {"holds"}
    [summary] = read_csv(out / "summary.csv")
    assert (summary["n_vio_tests"], summary["n_holds_tests"], summary["n_open_tests"]) == counts
    report = (out / "report.md").read_text()
    assert f"**Decided: {counts[0]} violated, 2 hold, {counts[2]} open**" in report and "## Adaptive rounds" in report
    assert "O'Brien-Fleming-type" in report and "falsely violated with probability at most 0.001" in report
    assert f"runs spent: {nruns} of the 13 of the fixed design" in report


def test_slurm_rounds_are_jobs_of_their_own_and_wait_follows_them(slurm_bench, tmp_path):
    bench = slurm_bench
    bench.ok("generate", CAMPAIGN, "--env", "slurm-mpich", "--set", "deployments=1x2", "--set", "nrun_max=10",
             *planted("mpich"))
    done = bench.ok("submit", "adaptive", "--wait", timeout=400)
    assert "look after round 1" in done.stdout and "round 2: 3 runs of " in done.stdout
    assert "look after round 2" in done.stdout and "budget spent" in done.stdout, done.stdout
    lines = bench.ok("status", "adaptive").stdout.splitlines()
    jobs = {line.split()[0]: line.split()[4] for line in lines[2:] if line.startswith("1x2-")}
    assert len(jobs) == 10 and all(j.isdigit() for j in jobs.values()) and len(set(jobs.values())) == 10
    assert any(line.startswith("adaptive: round 2 of at most 2") for line in lines)
    archive, _ = bench.archive("adaptive")
    out = tmp_path / "analysis"
    bench.ok("analyze", archive, "--out", out, "--no-plots")
    tests = {int(t["msize"]): t for t in read_csv(out / "tests.csv")}
    # The cell slowed in every run is violated; the two-level test over 7 runs may or may not reach the
    # first look's O'Brien-Fleming boundary (its p over runs, not over every round), so it is decided
    # after round 1 (7 runs) or measured again in round 2 (10).
    every = tests[EVERY_RUN]
    assert every["decision"] == "violated" and every["runs_a"] in ("7", "10"), every
    assert (every["runs_a"] == "7") == (every["decided_round"] == "1"), every
    assert tests[SOME_RUNS]["decision"] != "holds" and tests[SOME_RUNS]["runs_a"] == "10"


def test_adaptive_works_on_any_campaign_with_nrun_max(bench):
    # docs/workflow.md: `--set nrun_max=N` at generate, `submit --adaptive` later; the record is made then.
    bench.ok("generate", "demo", "--env", "local-openmpi", "--set", "deployments=1x2", "--set", "nrun=2",
             "--set", "nrun_max=3", "--set", "nrep=8")
    workspace = bench.workspace("demo")
    assert not (workspace.path / "adaptive.json").exists()
    done = bench.ok("submit", "demo", "--adaptive", timeout=300)
    assert "demo: look after round 1: " in done.stdout, done.stdout
    assert "done: no test open" in done.stdout or "budget spent" in done.stdout, done.stdout
    record = json.loads((workspace.path / "adaptive.json").read_text())
    assert record["looks_planned"] == 2 and record["looks"][0]["round"] == 1
    assert len(record["looks"]) <= 2 and (workspace.path / "looks" / "1" / "tests.csv").is_file()


def test_adaptive_mistakes_are_one_line_and_submit_nothing(bench, tmp_path):
    # --adaptive on a campaign without nrun_max, or without an assessment.
    bench.ok("generate", "demo", "--env", "local-openmpi", "--set", "nrun=2")
    refused = bench("submit", "demo", "--adaptive")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "an adaptive campaign needs nrun_max" in refused.stderr
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "experiments.py").write_text((ROOT / "campaigns" / "demo" / "experiments.py").read_text())
    (mine / "campaign.conf").write_text("deployments = 1x4\nnrun = 7\nnrun_max = 9\nnrep = 5\ntime_limit = 5\n")
    bench.ok("generate", mine, "--env", "local-openmpi")
    refused = bench("submit", "mine", "--adaptive")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "--adaptive needs the campaign's assessment" in refused.stderr and "no assessment.conf" in refused.stderr
    # An assessment that names no test of the campaign: its sides never meet.
    (mine / "assessment.conf").write_text("[none]\nparameter = op\nvaried = msize\n"
                                          "neighbor_alltoall <= allgather\n")
    bench.ok("generate", mine, "--env", "local-openmpi", "--set", "adaptive=yes")
    refused = bench("submit", "mine")
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "mine: campaign/assessment.conf: the assessment names no test of this campaign" in refused.stderr
    for name in ("demo", "mine"):
        assert not list(bench.workspace(name).attempts.iterdir()), "nothing submitted"
