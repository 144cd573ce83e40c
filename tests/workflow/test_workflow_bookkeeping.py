"""The workspace's bookkeeping is checked when read, and result rows when
archived (docs/robustness.md): a damaged record is one line naming the
file, bad rows are archived as such and said so, never sealed as good; an
interrupted submit says which run stopped and how to go on."""
import json
import signal

from workflow_testing import SLOW, read_csv, wait_until

RUN = "1x4-default-r001"


def tiny(bench):
    bench.ok("generate", "demo", "--env", "local-openmpi", "--set", "nrun=2", "--set", "nrep=2", "--set", "msize=64")
    bench.ok("submit", "demo", timeout=120)
    return bench.workspace("demo")


def one_line_error(result, code, text):
    assert result.returncode == code, result.stdout + result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert text in result.stderr, result.stderr
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr


def test_a_cut_attempt_record_is_named_by_status_submit_and_archive(bench):
    workspace = tiny(bench)
    record = workspace.record("1x4-default-r002", 1)
    record.write_text(record.read_text()[:40])
    for command in (("status", "demo"), ("submit", "--resume", "demo"), ("archive", "demo")):
        one_line_error(bench(*command), 2, f"{record}: damaged attempt record (not valid JSON: ")


def test_an_attempt_record_without_its_fields_is_named(bench):
    workspace = tiny(bench)
    record = workspace.record(RUN, 1)
    data = json.loads(record.read_text())
    del data["prefix"]
    record.write_text(json.dumps(data))
    one_line_error(bench("status", "demo"), 2, f"{record}: damaged attempt record (no 'prefix'; ")


def test_a_slurm_intent_with_a_malformed_time_is_a_record_error(bench):
    """A Slurm attempt whose job id is not known yet (an intent) is asked of
    Slurm by its name since its `submitted` time: a malformed time there was
    "internal error: ValueError" (exit 70); it is the record's error, naming
    the file (exit 2), before Slurm is asked."""
    workspace = tiny(bench)
    record = workspace.record("1x4-default-r002", 1)
    data = json.loads(record.read_text())
    for key in ("state", "exit_code", "detail", "ended", "pid", "pid_start"):
        data.pop(key, None)
    data.update(scheduler="slurm", job_name="nbh-demo-1x4-default-r002.a1.abcdef", submitted="26.11.2026 20:54",
                submitter_pid=None)
    record.write_text(json.dumps(data))
    one_line_error(bench("status", "demo"), 2,
                   f"{record}: damaged attempt record ('submitted' is '26.11.2026 20:54', not a UTC time ")


def test_damaged_campaign_and_archive_records_are_named(bench):
    workspace = tiny(bench)
    exit_file = workspace.exit_file(RUN, 1)
    exit_file.write_text("")  # empty: the job is writing it, or the disk was full: not damage
    assert bench("status", "demo").returncode == 0
    info = workspace.info_file
    text = info.read_text()
    info.write_text(text.replace('"scheduler": "local"', '"scheduler": 7'))
    one_line_error(bench("status", "demo"), 2, f"{info}: damaged campaign record ('scheduler' is 7; ")
    info.write_text(text)
    bench.archive("demo")
    history = workspace.path / "archived.json"
    history.write_text("[{\"archive\": ")
    one_line_error(bench("generate", "demo", "--env", "local-openmpi"), 2,
                   f"{history}: damaged archive history (not valid JSON: ")


def test_bad_rows_are_archived_as_damaged_and_left_out_of_the_analysis(bench):
    workspace = tiny(bench)
    results = workspace.path / "results" / f"{RUN}.a1.results.csv"
    lines = results.read_text().split("\n")
    with open(results, "a") as f:
        f.write("abc,0,1e-05,0\n")                       # not a row
        f.write(lines[1].replace(",0,", ",7,") + "\n")  # a rep beyond nrep
    archived = bench("archive", "demo")
    assert archived.returncode == 0
    assert (f"nbhbench: archive: run {RUN}: 2 malformed row(s) in {results} (line {len(lines)}: "
            "not id,rep,round,seconds,work_seconds); archived as damaged") in archived.stderr
    archive = archived.stdout.strip().splitlines()[-1]
    runs = {r["run_id"]: r for r in read_csv(f"{archive}/runs.csv")}
    assert (runs[RUN]["state"], runs[RUN]["rejected_rows"]) == ("damaged", "2")
    assert runs["1x4-default-r002"]["state"] == "done"
    rejected = read_csv(f"{archive}/results/{RUN}.rejected.csv")
    assert [r["reason"] for r in rejected] == ["not id,rep,round,seconds,work_seconds", "rep 7 is outside 0..1 (nrep 2)"]
    info = json.loads(open(f"{archive}/archive.json").read())
    assert info["damaged_runs"][0].startswith(f"{RUN}: 2 malformed row(s)")
    analysed = bench("analyze", archive, "--no-plots", "--out", bench.work.parent / "analysis")
    assert analysed.returncode == 0, analysed.stderr
    assert f"run(s) {RUN} were archived as damaged" in analysed.stderr


def test_a_cut_experiment_is_left_out_but_is_no_damage(bench):
    workspace = tiny(bench)
    results = workspace.path / "results" / f"{RUN}.a1.results.csv"
    lines = results.read_text().split("\n")
    results.write_text("\n".join(lines[:-2]) + "\n")  # the last experiment loses its last row
    archived = bench("archive", "demo")
    assert archived.returncode == 0 and "damaged" not in archived.stderr
    archive = archived.stdout.strip().splitlines()[-1]
    runs = {r["run_id"]: r for r in read_csv(f"{archive}/runs.csv")}
    # msize 64: 8 experiments and 2 A/A twins (the demo's aa = 0.25)
    assert (runs[RUN]["state"], runs[RUN]["experiments_done"], runs[RUN]["rejected_rows"]) == ("failed", "9", "1")
    rejected = read_csv(f"{archive}/results/{RUN}.rejected.csv")
    assert len(rejected) == 1 and rejected[0]["reason"].endswith(": round 1 has 1 of its 2 rows (cut off)")


def test_an_interrupted_submit_names_the_run_and_the_way_on(bench):
    bench.ok("generate", SLOW, "--set", "nrep=50")
    # As under a caller that ignores Ctrl-C (bash -c 'make test &'): the
    # submit the test interrupts must hear it all the same (Bench.start).
    ignored = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        submit = bench.start("submit", "slow")
    finally:
        signal.signal(signal.SIGINT, ignored)
    record = bench.work / "slow" / "attempts" / "1x2-default-r001.a1.json"
    wait_until(lambda: record.exists() and "pid_start" in record.read_text(), 30, "the run starts")
    submit.send_signal(signal.SIGINT)
    try:
        _, stderr = submit.communicate(timeout=60)
    finally:
        if submit.poll() is None:  # it did not hear Ctrl-C: SIGTERM ends it and its run
            submit.terminate()
            submit.communicate(timeout=60)
    assert submit.returncode == 130
    assert stderr.strip() == ("nbhbench: interrupted: run 1x2-default-r001 attempt 1 stopped; its finished "
                              "experiments are kept; go on with: nbhbench submit --resume slow")


def test_a_library_that_names_no_version_is_archived_and_analysed(bench):
    """MPI_Get_library_version may say nothing: archive takes the run with an
    empty library_version (it was an internal error), and analyze reads it."""
    workspace = tiny(bench)
    for run, version in ((RUN, ""), ("1x4-default-r002", None)):
        prov = workspace.path / "results" / f"{run}.a1.prov.json"
        data = json.loads(prov.read_text())
        data["library_version"] = version
        prov.write_text(json.dumps(data))
    archived = bench("archive", "demo")
    assert archived.returncode == 0 and "internal error" not in archived.stderr, archived.stderr
    archive = archived.stdout.strip().splitlines()[-1]
    assert [r["library_version"] for r in read_csv(f"{archive}/runs.csv")] == ["", ""]
    analysed = bench("analyze", archive, "--no-plots", "--out", bench.work.parent / "analysis")
    assert analysed.returncode == 0, analysed.stderr


def test_one_workspace_archived_twice_is_not_counted_twice(bench, tmp_path):
    """`archive demo` twice gives two archives of the same launches (the
    issue: `analyze archives/demo-openmpi-*` pooled them, 8 of 8 runs from 4
    launches): analyze refuses them in one line naming the one to analyse,
    and `history add` of both adds the first and says the second is already in."""
    tiny(bench)
    first, _ = bench.archive("demo")
    again, _ = bench.archive("demo")
    refused = bench("analyze", first, again, "--no-plots", "--out", tmp_path / "both")
    one_line_error(refused, 2, f"nbhbench: {first} and {again} hold the same launch (run {RUN} attempt 1 and 1 more): "
                               f"archives of one workspace, whose runs would count twice; {again} holds every run of "
                               f"{first}: analyse it alone")
    db = tmp_path / "history.db"
    added = bench("history", "add", "--db", db, first, again)
    assert added.returncode == 0, added.stderr
    assert added.stdout.splitlines()[1] == f"{again}: already in {db} (entry 1); nothing added", added.stdout


def test_submit_into_a_pipe_says_its_first_line_at_once(bench):
    """Into a pipe (a CI log, `| tee`) the progress line comes once in 30 s;
    the first came only after 30 s or at the end of the first run. Now it
    comes as the run starts: read while the run is still going."""
    bench.ok("generate", SLOW, "--set", "nrep=50")   # 40 experiments x 50 x 20 ms: some 40 s
    submit = bench.start("submit", "slow")
    try:
        first = submit.stdout.readline()
        assert submit.poll() is None, "the submit is still at its first run"
        assert first.startswith("run 1/1 1x2-default-r001: 0/40 experiments | campaign 0/40 | elapsed ") and \
            "->" not in first, first
    finally:
        submit.send_signal(signal.SIGINT)
        submit.communicate(timeout=60)

