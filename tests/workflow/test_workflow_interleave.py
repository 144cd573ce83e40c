"""Interleaved launches (gen.runs.plan_runs, workflow/interleave.py), with
real runs: a campaign of two parameter sets is submitted in slots of one
run of each set; `submit --interleave-with` makes one sequence of two
libraries' workspaces; through the tests' Slurm the jobs are chained, so
they start in the order submitted; the archive's runs.csv says
interleave, slot and launch_order (the order the runs really started)."""
import csv
import json
import os
import shutil

import pytest

from workflow_testing import ROOT, Bench, read_csv

SMALL = ["--set", "nrep=2", "--set", "msize=64"]
SETS = {"openmpi": "coll_tuned_use_dynamic_rules = true", "mpich": "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM = auto"}


def two_sets(tmp_path, library="openmpi"):
    """The demo campaign with two parameter sets for LIBRARY."""
    campaign = tmp_path / f"two-sets-{library}"
    shutil.copytree(ROOT / "campaigns" / "demo", campaign)
    with open(campaign / "campaign.conf", "a") as f:
        f.write(f"\n[param_set default]\n\n[param_set tuned]\n{SETS[library]}\n")
    return campaign


def starts(workspace, runs):
    """Each run's first attempt's start (its job script's start file)."""
    return [float(workspace.start_file(r["run_id"], 1).read_text()) for r in runs]


def ends(workspace, runs):
    """When each run's first attempt's launcher ended (its exit file's time)."""
    return [os.stat(workspace.exit_file(r["run_id"], 1)).st_mtime for r in runs]


def check_slots(rows, sets):
    """Every slot holds one run of each of SETS ((library, param_set) pairs)."""
    slots = sorted({int(r["slot"]) for r in rows})
    assert slots == list(range(1, len(slots) + 1))
    for slot in slots:
        assert sorted((r["library"], r["param_set"]) for r in rows if int(r["slot"]) == slot) == sorted(sets)


def test_two_sets_run_in_slots_and_the_archive_says_interleave_slot_and_launch_order(bench, tmp_path):
    campaign = two_sets(tmp_path)
    bench.ok("generate", campaign, "--env", "local-openmpi", "--set", "nrun=3", *SMALL)
    workspace = bench.workspace(campaign.name)
    planned = workspace.runs()
    bench.ok("submit", campaign.name)
    archive, _ = bench.archive(campaign.name)
    rows = read_csv(archive / "runs.csv")
    assert list(rows[0])[-3:] == ["interleave", "slot", "launch_order"]
    assert [r["run_id"] for r in rows] == [r["run_id"] for r in planned]
    ident = planned[0]["interleave"]
    assert ident and {r["interleave"] for r in rows} == {ident}
    check_slots(rows, [("openmpi", "default"), ("openmpi", "tuned")])
    assert [int(r["launch_order"]) for r in rows] == list(range(1, 7)), "started in the planned order"
    started, ended = starts(workspace, planned), ends(workspace, planned)
    assert all(ended[k] <= started[k + 1] for k in range(5)), "one after another, in slots"
    assert (archive / "attempts" / f"{planned[0]['run_id']}.a1.start").is_file()
    report = tmp_path / "analysis"
    bench.ok("analyze", archive, "--out", report, timeout=600)
    assert (report / "summary.csv").is_file()


def test_launch_order_is_the_real_order_not_the_plan(bench, tmp_path):
    """A run's position is its first attempt's start: swapped start files
    (as a scheduler that reorders jobs leaves them) swap the positions."""
    campaign = two_sets(tmp_path)
    bench.ok("generate", campaign, "--env", "local-openmpi", "--set", "nrun=2", *SMALL)
    workspace = bench.workspace(campaign.name)
    runs = workspace.runs()
    bench.ok("submit", campaign.name)
    first, last = (workspace.start_file(runs[k]["run_id"], 1) for k in (0, 3))
    first_text, last_text = first.read_text(), last.read_text()
    first.write_text(last_text)
    last.write_text(first_text)
    archive, _ = bench.archive(campaign.name)
    assert [int(r["launch_order"]) for r in read_csv(archive / "runs.csv")] == [4, 2, 3, 1]


def test_an_older_workspace_without_the_columns_archives_and_analyses(bench, tmp_path):
    """A workspace from before the interleaved plan (no interleave, no slot
    in runs.csv) and its job scripts before the start files: the archive
    leaves both columns empty, takes launch_order from the attempt records'
    start (to the second), and the analysis reads it."""
    bench.ok("generate", "demo", "--env", "local-openmpi", "--set", "nrun=2", *SMALL)
    workspace = bench.workspace("demo")
    runs = read_csv(workspace.path / "runs.csv")
    older = [c for c in runs[0] if c not in ("interleave", "slot")]
    assert len(older) == len(runs[0]) - 2
    with open(workspace.path / "runs.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, older, extrasaction="ignore", lineterminator="\n")
        writer.writeheader()
        writer.writerows(runs)
    bench.ok("submit", "demo")
    for path in workspace.attempts.glob("*.start"):
        path.unlink()
    archive, _ = bench.archive("demo")
    rows = read_csv(archive / "runs.csv")
    assert [(r["interleave"], r["slot"]) for r in rows] == [("", "")] * 2
    assert [r["launch_order"] for r in rows] == ["1", "2"]
    bench.ok("analyze", archive, "--out", tmp_path / "analysis", timeout=600)


def test_two_libraries_submitted_as_one_interleaved_sequence(tmp_path):
    """`submit A --interleave-with B`: slot k holds run k of both libraries,
    and every run of slot k starts before any run of slot k + 1."""
    benches = {library: Bench(tmp_path / library) for library in ("openmpi", "mpich")}
    for library, bench in benches.items():
        bench.ok("generate", "demo", "--env", f"local-{library}", "--set", "nrun=3", *SMALL)
    other = benches["mpich"].workspace("demo")
    result = benches["openmpi"].ok("submit", "demo", "--interleave-with", other.path, timeout=600)
    assert f"interleaved with {other.path}" in result.stdout and ": 6 runs to submit" in result.stdout
    assert "mpich:1x4-default-r001" in result.stdout and "openmpi:1x4-default-r001" in result.stdout
    rows, timeline = [], []
    for library, bench in benches.items():
        workspace = bench.workspace("demo")
        record = json.loads((workspace.path / "interleave.json").read_text())
        assert [m["library"] for m in record["members"]] == ["openmpi", "mpich"]
        archive, _ = bench.archive("demo")
        mine = read_csv(archive / "runs.csv")
        rows += mine
        timeline += [(start, end, int(r["slot"])) for r, start, end in
                     zip(mine, starts(workspace, mine), ends(workspace, mine))]
        assert [r["launch_order"] for r in mine] == ["1", "2", "3"]
    assert len({r["interleave"] for r in rows}) == 1 and rows[0]["interleave"].startswith("demo-")
    check_slots(rows, [("openmpi", "default"), ("mpich", "default")])
    timeline.sort()
    assert [slot for _, _, slot in timeline] == [1, 1, 2, 2, 3, 3], "slot after slot"
    assert all(timeline[k][1] <= timeline[k + 1][0] for k in range(5)), "one launch at a time"

    # The sequence is the workspaces' own now: a submit of either goes on with it.
    again = benches["mpich"].ok("submit", "demo")
    assert "interleaved with" in again.stdout and ": 0 runs to submit" in again.stdout


def test_what_cannot_be_interleaved_is_one_line_before_anything_runs(tmp_path):
    a, b = Bench(tmp_path / "a"), Bench(tmp_path / "b")
    a.ok("generate", "demo", "--env", "local-openmpi", "--set", "nrun=1", *SMALL)
    b.ok("generate", "demo", "--env", "local-mpich", "--set", "nrun=1", *SMALL)
    theirs = b.workspace("demo").path

    def refused(bench, *args, message):
        result = bench("submit", "demo", *args)
        assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stdout + result.stderr
        assert message in result.stderr, result.stderr
        assert not any(bench.workspace("demo").attempts.glob("*.json")), "nothing ran"

    refused(a, "--interleave-with", tmp_path / "nowhere", message="no generated workspace there")
    refused(a, "--interleave-with", theirs, theirs, message="is named twice")
    slurm = Bench(tmp_path / "s")
    slurm.ok("generate", "demo", "--env", "slurm-openmpi", "--set", "nrun=1", *SMALL)
    refused(a, "--interleave-with", slurm.workspace("demo").path, message="submit to different schedulers")
    adaptive = Bench(tmp_path / "ad")
    adaptive.ok("generate", "demo", "--env", "local-openmpi", "--set", "adaptive=yes", "--set", "nrun_max=20")
    refused(a, "--interleave-with", adaptive.workspace("demo").path, message="is an adaptive campaign")
    b.ok("submit", "demo")
    refused(a, "--interleave-with", theirs, message="has runs submitted before (1 attempts)")
    assert not (a.workspace("demo").path / "interleave.json").exists()


@pytest.mark.parametrize("free", [False, True])
def test_through_slurm_the_jobs_are_chained_in_the_sequence_order(slurm_bench, tmp_path, free):
    """Through Slurm the sequence's jobs are submitted in its order, each
    waiting for the one before it (--dependency=afterany): they start in
    that order, one at a time, and launch_order says so. --free-order
    submits them unchained: their launch_order is whatever order Slurm
    started them in."""
    bench = slurm_bench
    other = Bench(tmp_path / "mpich", bench.slurm.env, bench.slurm)
    campaign = two_sets(tmp_path)
    bench.ok("generate", campaign, "--env", "slurm-openmpi", "--set", "nrun=2", *SMALL)
    other.ok("generate", "demo", "--env", "slurm-mpich", "--set", "nrun=2", *SMALL)
    options = ["--free-order"] if free else []
    bench.ok("submit", campaign.name, "--wait", "--interleave-with", other.workspace("demo").path, *options,
             timeout=600)
    mine, theirs = bench.workspace(campaign.name), other.workspace("demo")
    order = json.loads((mine.path / "interleave.json").read_text())["order"]
    assert len(order) == 6 and [e["slot"] for e in order] == [1, 1, 1, 2, 2, 2]
    members = [mine, theirs]
    records = [json.loads(members[e["member"]].record(e["run_id"], 1).read_text()) for e in order]
    if free:
        assert not any("after" in r for r in records)
    else:
        assert [r.get("after") for r in records] == [None] + [r["job_id"] for r in records[:-1]]
        started = [float(members[e["member"]].start_file(e["run_id"], 1).read_text()) for e in order]
        ended = [os.stat(members[e["member"]].exit_file(e["run_id"], 1)).st_mtime for e in order]
        assert all(ended[k] <= started[k + 1] for k in range(5)), "each job after the one before it"
    for workspace, bench_ in ((mine, bench), (theirs, other)):
        archive, _ = bench_.archive(workspace.name)
        rows = read_csv(archive / "runs.csv")
        assert {r["interleave"] for r in rows} == {json.loads((workspace.path / "interleave.json").read_text())["interleave"]}
        real = sorted(rows, key=lambda r: float(workspace.start_file(r["run_id"], 1).read_text()))
        assert [r["launch_order"] for r in real] == [str(k) for k in range(1, len(rows) + 1)]
        if not free:
            assert [r["launch_order"] for r in rows] == [str(k) for k in range(1, len(rows) + 1)]
