"""Attempts: each kernel launch of a run (the first, and each --resume).

An attempt's record (attempts/RUN.aN.json) says how it was submitted; its
state comes from the record once final, else from the job's exit file,
the local process, or Slurm. An attempt has ended once its job has: the
job script writes its exit file before its last lines, and Slurm ends the
job after them. A run's finished experiments are the union of the complete
experiments of its attempts (the kernel writes an experiment's nrep rows
with one write, so a results file never holds part of one).

A Slurm attempt's record is written before sbatch, with the job name it is
submitted under and no job id (an intent), then again with sbatch's pid
before sbatch runs (workflow/slurm.py's gate); the job id follows once
sbatch gave it. A submit stopped between the two (killed, a lost terminal)
left an intent: while its sbatch still runs, the intent stays (its job may
reach Slurm later); then the next status or submit asks Slurm for a job of
that name (reconcile_submissions) and records its id, or, where Slurm knows
none and no job left a trace, removes the record, so the run is submitted
again.
"""
import collections
import contextlib
import dataclasses
import datetime
import fcntl
import json
import os
import re

from gen import records, whole_files
from gen.errors import display_path
from gen.workspace import now_utc
from workflow import result_rows, slurm

FINAL = ("done", "failed", "timeout")
# The kernel's exit codes for its outputs (docs/kernel.md): 3 an output file
# cannot be created or written; 4 the same because the file system is full.
KERNEL_EXIT_OUTPUT = 3
KERNEL_EXIT_NO_SPACE = 4


# What an attempt record must hold to be read (docs/workflow.md).
RECORD_FIELDS = {"run_id": str, "attempt": int, "scheduler": str, "input": str, "prefix": str,
                 "log": str, "job": str, "submitted": str}


def read_json(path):
    """A kernel's JSON file (PREFIX.prov.json), or None if it is not there or
    not whole (a kernel killed before its first provenance)."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_json(path, data):
    """Writes DATA to PATH whole (a reader never sees half a file)."""
    whole_files.write_json(path, data)


def read_record(workspace, run_id, number):
    """attempts/RUN.aN.json, checked: RecordError names it if it is damaged."""
    path = workspace.record(run_id, number)
    what = "attempt record"
    record = records.read_object(path, what, RECORD_FIELDS)
    if record["run_id"] != run_id or record["attempt"] != number:
        raise records.RecordError(path, what, f"it says run {record['run_id']} attempt {record['attempt']}")
    if record["scheduler"] not in ("local", "slurm"):
        raise records.RecordError(path, what, f"scheduler '{record['scheduler']}'")
    if record.get("state") is not None and record["state"] not in FINAL:
        raise records.RecordError(path, what, f"state '{record['state']}'")
    if record["scheduler"] == "slurm" and not str(record.get("job_id", "")).isdigit() and not is_intent(record):
        raise records.RecordError(path, what, f"job_id {record.get('job_id')!r}")
    try:
        parse_utc(record["submitted"])
    except ValueError:
        raise records.RecordError(path, what, f"'submitted' is {record['submitted']!r}, not a UTC time "
                                              "(YYYY-mm-ddTHH:MM:SSZ)") from None
    for pid in ("submitter_pid", "sbatch_pid"):
        if record.get(pid) is not None and (not isinstance(record[pid], int) or isinstance(record[pid], bool)):
            raise records.RecordError(path, what, f"'{pid}' is {record[pid]!r}")
    return record


def parse_utc(text):
    """A record's UTC time (2026-11-26T20:54:13Z); ValueError if it is not one."""
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=datetime.timezone.utc)


def is_intent(record):
    """Whether RECORD is a Slurm attempt whose job id is not known (yet): written
    before sbatch with the job's name, and sbatch has not answered, or its
    submit was stopped before it could record the answer."""
    return "job_id" not in record and isinstance(record.get("job_name"), str) and bool(record["job_name"])


def new_record(workspace, run_id, number, scheduler):
    return {"run_id": run_id, "attempt": number, "scheduler": scheduler,
            "input": str(workspace.input(run_id, number)), "prefix": str(workspace.prefix(run_id, number)),
            "log": str(workspace.log(run_id, number)), "job": str(workspace.job(run_id, number)),
            "submitted": now_utc(), "submitter_pid": os.getpid(),
            "submitter_start": process_start(os.getpid())}


def process_start(pid):
    """The start time of process PID (clock ticks since boot), or None if it
    is gone (a zombie, ended but not yet reaped by its parent, is gone)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return None if fields[0] == "Z" else int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def local_alive(record):
    """Whether the job or the nbhbench process running it is still there."""
    return any(record.get(pid) and process_start(record[pid]) == record.get(start)
               for pid, start in (("pid", "pid_start"), ("submitter_pid", "submitter_start")))


def submitter_alive(record):
    """Whether the nbhbench submit that wrote RECORD still runs."""
    return bool(record.get("submitter_pid")) and process_start(record["submitter_pid"]) == record.get("submitter_start")


def sbatch_alive(record):
    """Whether the sbatch of the intent RECORD still runs (it outlives a
    killed submit: its job may reach Slurm after the submit is gone)."""
    return bool(record.get("sbatch_pid")) and process_start(record["sbatch_pid"]) == record.get("sbatch_start")


# The submit lock of each workspace this process holds (submit_lock).
_HELD_LOCKS = set()


@contextlib.contextmanager
def submit_lock(workspace):
    """Holds WORKSPACE's submit lock (.submit.lock) while the block runs:
    two submits at once would submit the same runs. Yields whether it is
    held: False when another process holds it."""
    path = str(workspace.path / ".submit.lock")
    if path in _HELD_LOCKS:
        yield True
        return
    with open(path, "a+") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        _HELD_LOCKS.add(path)
        try:
            yield True
        finally:
            _HELD_LOCKS.discard(path)


def read_exit_file(path):
    return records.read_exit_code(path)


def log_says(record):
    """What Slurm wrote into the job's output when it ended the job, if anything."""
    try:
        with open(record["log"], encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    if re.search(r"CANCELLED AT \S+ DUE TO TIME LIMIT", text):
        return "timeout"
    if "CANCELLED AT" in text:
        return "failed"
    return None


@dataclasses.dataclass
class AttemptState:
    state: str          # pending, running, done, failed, timeout, unknown
    exit_code: object   # int or None
    detail: str = ""
    never_starts: str = ""  # pending for a reason Slurm will never lift (slurm.NEVER_STARTS)


def failure_detail(record, code):
    """Why an attempt failed: the exit code, and the kernel's one-line
    complaint if its log has one (bad input, an unknown library parameter)."""
    detail = f"the launcher exited with {code}"
    try:
        with open(record["log"], "rb") as f:
            f.seek(0, 2)
            f.seek(max(f.tell() - 65536, 0))
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return detail
    said = [line for line in lines if line.startswith("nbh-kernel: ") and "data check:" not in line]
    if said:
        return f"{detail}: {said[-1]}"
    # On a full disk the kernel's message may not have reached the log:
    # its exit code still says what happened.
    results = display_path(os.path.dirname(record["prefix"]))
    if code == KERNEL_EXIT_NO_SPACE:
        return f"{detail}: {results}: No space left on device (the kernel kept every finished experiment)"
    if code == KERNEL_EXIT_OUTPUT:
        return f"{detail}: the kernel could not write its output files under {results}"
    return detail


ENDING = "every experiment's rows are written; the job has not ended"


def attempt_state(workspace, record, slurm_jobs, slurm_answered):
    """The state of the attempt RECORD (see the module help)."""
    if record.get("state") in FINAL:
        return AttemptState(record["state"], record.get("exit_code"), record.get("detail", ""))
    code = read_exit_file(workspace.exit_file(record["run_id"], record["attempt"]))
    ended = None if code is None else AttemptState("done" if code == 0 else "failed", code,
                                                   "" if code == 0 else failure_detail(record, code))
    if record["scheduler"] == "local":
        if local_alive(record):  # its submit records the end once the job's processes are gone
            return AttemptState("running", None, "the job script has ended" if ended else "")
        return ended or AttemptState("failed", None, "the run ended without an exit code (interrupted)")
    if is_intent(record):
        return intent_state(workspace, record, ended, slurm_answered)
    job_id = record["job_id"]
    if job_id in slurm_jobs:
        slurm_state, slurm_code, reason = slurm_jobs[job_id]
        state = slurm.run_state(slurm_state)
        if state in ("pending", "running"):  # Slurm says 0:0 for a job that has not ended
            never = slurm.never_starts(reason) if state == "pending" else ""
            detail = (f"Slurm can never start it: {never}" if never else
                      (f"Slurm: {reason}" if reason else "queued") if state == "pending" else
                      "the job script has ended; Slurm has not ended the job yet" if ended else "")
            return AttemptState(state, None, detail, never)
        if ended:
            return ended
        if not os.path.exists(record["log"]):
            slurm_code = None  # it never ran (it made no output): Slurm's 0:0 says nothing
        return AttemptState(state, slurm_code, "" if state == "done" else f"Slurm: {slurm_state}")
    if not slurm_answered:
        return AttemptState("unknown", None, "Slurm does not answer" + ("; the job wrote its exit code" if ended else ""))
    if ended:
        return ended  # Slurm has forgotten the job: it ended long ago
    said = log_says(record)
    if said:
        return AttemptState(said, None, "from the job output")
    return AttemptState("failed", None, f"Slurm no longer knows job {job_id} and it left no exit code")


def intent_state(workspace, record, ended, slurm_answered):
    """The state of an attempt whose job id is not known (is_intent), after
    reconcile_submissions: its submit is still at it, or Slurm knows no job
    of its name."""
    name = record["job_name"]
    if submitter_alive(record):
        return AttemptState("pending", None, f"being submitted (job {name})")
    if sbatch_alive(record):
        return AttemptState("pending", None, f"being submitted (job {name}): its submit was stopped, its sbatch "
                                             f"(pid {record['sbatch_pid']}) still runs")
    if not slurm_answered:
        return AttemptState("unknown", None, f"its submit was stopped while sbatch ran; Slurm does not answer "
                                             f"whether it took job {name}")
    if ended:
        return ended
    if not traces(workspace, record):  # another submit holds the workspace's lock and goes on from here
        return AttemptState("pending", None, f"its submit was stopped before Slurm took job {name}")
    said = log_says(record)
    if said:
        return AttemptState(said, None, "from the job output")
    return AttemptState("failed", None, f"Slurm no longer knows job {name} (its submit was stopped before it "
                                        "recorded the job id) and it left no exit code")


def traces(workspace, record):
    """Whether the attempt's job left anything: its log (Slurm's output file,
    made when the job starts) or its exit file."""
    return os.path.exists(record["log"]) or workspace.exit_file(record["run_id"], record["attempt"]).exists()


def local_time(utc_text, hours_before=0):
    """A record's UTC time (2026-11-26T20:54:13Z) as local time for sacct, HOURS_BEFORE earlier."""
    return (parse_utc(utc_text) - datetime.timedelta(hours=hours_before)).astimezone().strftime("%Y-%m-%dT%H:%M:%S")


def reconcile_submissions(workspace, records):
    """Completes the intents (is_intent) whose submit has stopped: the job
    Slurm knows by the intent's name is its job (the record gets its id);
    where Slurm knows none, the attempt left no trace and its sbatch has
    ended too (while it runs, the job may still reach Slurm), sbatch never
    made the job, and the record is removed (with the workspace's submit lock
    held, so that no submit is writing a new one), so that the next submit
    submits the run again. RECORDS: {run id: [record]}, changed in place.
    Raises slurm.Unreachable if Slurm does not answer."""
    stopped = [r for rs in records.values() for r in rs if is_intent(r) and not submitter_alive(r)]
    if not stopped:
        return
    # Asked before Slurm is: an sbatch that ends after the question may have made its job after it too.
    sbatch_running = {r["job_name"] for r in stopped if sbatch_alive(r)}
    since = local_time(min(r["submitted"] for r in stopped), hours_before=1)
    named = slurm.jobs_named([r["job_name"] for r in stopped], since)
    for record in stopped:
        path = workspace.record(record["run_id"], record["attempt"])
        if record["job_name"] in named:
            record["job_id"] = named[record["job_name"]]
            write_json(path, record)
        elif not traces(workspace, record) and record["job_name"] not in sbatch_running:
            with submit_lock(workspace) as held:
                if held and read_record(workspace, record["run_id"], record["attempt"]) == record:
                    with contextlib.suppress(FileNotFoundError):
                        os.unlink(path)
                    records[record["run_id"]].remove(record)


def finalize(workspace, record, state):
    """Stores a final state in the record, so it outlives Slurm's memory."""
    if state.state in FINAL and record.get("state") not in FINAL:
        record.update(state=state.state, exit_code=state.exit_code, detail=state.detail, ended=now_utc())
        write_json(workspace.record(record["run_id"], record["attempt"]), record)


def input_ids(path):
    """The experiment ids of a kernel input file, in its order."""
    ids, column = [], None
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, start=1):
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            fields = line.split(",")
            if column is None:
                if "id" not in fields:
                    raise records.RecordError(path, "run input", f"line {number}: a header without id")
                column = fields.index("id")
                continue
            if len(fields) <= column or not fields[column].isdigit():
                raise records.RecordError(path, "run input", f"line {number}: no experiment id")
            ids.append(int(fields[column]))
    return ids


def whole_rounds(prefix, expected):
    """{id: the rounds of it that PREFIX.results.csv holds whole} (each with
    the rows it keeps: result_rows.complete_rounds)."""
    try:
        with open(prefix + ".results.csv", encoding="utf-8", errors="replace") as f:
            text = f.read()
    except OSError:
        return {}
    lines = text.split("\n")
    rounded = result_rows.integer_columns(lines[0]) == 3
    fields = lines[0].count(",")  # a row has as many as the header
    rows_of = collections.defaultdict(collections.Counter)
    for line in lines[1:-1]:  # what follows the last newline is unfinished
        if line.count(",") != fields:
            continue
        parts = line.split(",", 3)
        if parts[0].isdigit() and (not rounded or parts[2].isdigit()):
            rows_of[int(parts[0])][int(parts[2]) if rounded else 1] += 1
    return result_rows.complete_rounds(rows_of, expected, result_rows.kept_rows(prefix), rounded)


def complete_ids(prefix, expected):
    """Ids with every round whole in PREFIX.results.csv."""
    return [i for i, rounds in whole_rounds(prefix, expected).items() if expected.all_rounds(i) <= rounds]


def prov(record):
    return read_json(record["prefix"] + ".prov.json")


def attempt_rounds(record, expected):
    """{id: the rounds attempt RECORD measured whole}."""
    return whole_rounds(record["prefix"], expected)


def attempt_done_ids(record, expected):
    """The experiments attempt RECORD finished (all their rounds in it)."""
    return complete_ids(record["prefix"], expected)


@dataclasses.dataclass
class RunStatus:
    run: dict                 # the row of runs.csv
    attempts: list            # [(record, AttemptState, done ids)]
    done: set                 # experiments whose every round some attempt measured whole
    total: int
    state: str
    detail: str = ""
    rounds: dict = dataclasses.field(default_factory=dict)  # id -> the rounds measured whole

    @property
    def run_id(self):
        return self.run["run_id"]

    @property
    def last(self):
        return self.attempts[-1] if self.attempts else None


def records_of(workspace, run_id):
    return [read_record(workspace, run_id, n) for n in workspace.attempt_numbers(run_id)]


def overall(attempt_list, done, total):
    """A run's state from its attempts: done once every experiment is and
    no attempt's job still runs (its log, exit code and Slurm state are
    final only then)."""
    if not attempt_list:
        return "pending", "not submitted"
    going = [state for _, state, _ in attempt_list if state.state in ("pending", "running", "unknown")]
    if going:
        return going[-1].state, going[-1].detail or (ENDING if len(done) >= total else "")
    if len(done) >= total:
        return "done", ""
    state = attempt_list[-1][1]
    if state.state == "done":
        return "failed", f"ended with exit code 0 but {total - len(done)} experiments are missing"
    return state.state, state.detail


def run_statuses(workspace):
    """Every run of WORKSPACE with its attempts and finished experiments."""
    expected = result_rows.Expected.of(workspace.experiments())
    runs = workspace.runs()
    records = {run["run_id"]: records_of(workspace, run["run_id"]) for run in runs}
    try:
        reconcile_submissions(workspace, records)
        open_jobs = [r["job_id"] for rs in records.values() for r in rs
                     if r["scheduler"] == "slurm" and r.get("state") not in FINAL and r.get("job_id")]
        jobs, answered = slurm.job_states(open_jobs), True
    except slurm.Unreachable:
        jobs, answered = {}, False
    statuses = []
    for run in runs:
        attempt_list, rounds = [], {}
        for record in records[run["run_id"]]:
            state = attempt_state(workspace, record, jobs, answered)
            finalize(workspace, record, state)
            whole = attempt_rounds(record, expected)
            for ident, measured in whole.items():
                rounds.setdefault(ident, set()).update(measured)
            attempt_list.append((record, state, [i for i, r in whole.items() if expected.all_rounds(i) <= r]))
        done = {i for i, r in rounds.items() if expected.all_rounds(i) <= r}
        total = int(run["experiments_total"])
        state, detail = overall(attempt_list, done, total)
        statuses.append(RunStatus(run, attempt_list, done, total, state, detail, rounds))
    return statuses


def all_failed(workspace):
    """How many runs WORKSPACE has, if every attempt made has ended and none
    finished an experiment (nothing to archive, nothing that may still
    write into it); else None. What lets generate replace a workspace whose
    results were never archived (gen.workspace.stage_workspace)."""
    statuses = run_statuses(workspace)
    if any(s.done or (s.attempts and s.state in ("pending", "running", "unknown")) for s in statuses):
        return None
    return sum(1 for s in statuses if s.attempts)
