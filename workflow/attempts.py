"""Attempts: each kernel launch of a run (the first, and each --resume).

An attempt's record (attempts/RUN.aN.json) says how it was submitted; its
state comes from the record once final, else from the job's exit file,
the local process, or Slurm. A run's finished experiments are the union of
the complete experiments of its attempts (the kernel writes an experiment's
nrep rows with one write, so a results file never holds part of one).
"""
import collections
import dataclasses
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
    if record["scheduler"] == "slurm" and not str(record.get("job_id", "")).isdigit():
        raise records.RecordError(path, what, f"job_id {record.get('job_id')!r}")
    return record


def new_record(workspace, run_id, number, scheduler):
    return {"run_id": run_id, "attempt": number, "scheduler": scheduler,
            "input": str(workspace.input(run_id, number)), "prefix": str(workspace.prefix(run_id, number)),
            "log": str(workspace.log(run_id, number)), "job": str(workspace.job(run_id, number)),
            "submitted": now_utc(), "submitter_pid": os.getpid(),
            "submitter_start": process_start(os.getpid())}


def process_start(pid):
    """The start time of process PID (clock ticks since boot), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as f:
            return int(f.read().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def local_alive(record):
    """Whether the job or the nbhbench process running it is still there."""
    return any(record.get(pid) and process_start(record[pid]) == record.get(start)
               for pid, start in (("pid", "pid_start"), ("submitter_pid", "submitter_start")))


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


def attempt_state(workspace, record, slurm_jobs, slurm_answered):
    """The state of the attempt RECORD (see the module help)."""
    if record.get("state") in FINAL:
        return AttemptState(record["state"], record.get("exit_code"), record.get("detail", ""))
    code = read_exit_file(workspace.exit_file(record["run_id"], record["attempt"]))
    if code is not None:
        return AttemptState("done" if code == 0 else "failed", code,
                            "" if code == 0 else failure_detail(record, code))
    if record["scheduler"] == "local":
        if local_alive(record):
            return AttemptState("running", None)
        return AttemptState("failed", None, "the run ended without an exit code (interrupted)")
    job_id = record.get("job_id")
    if job_id in slurm_jobs:
        slurm_state, code, reason = slurm_jobs[job_id]
        state = slurm.run_state(slurm_state)
        if state in ("pending", "running") or not os.path.exists(record["log"]):
            code = None  # Slurm says 0:0 for a job that has not ended, or never ran (it made no output)
        never = slurm.never_starts(reason) if state == "pending" else ""
        if never:
            detail = f"Slurm can never start it: {never}"
        elif state == "pending":
            detail = f"Slurm: {reason}" if reason else "queued"
        else:
            detail = "" if state in ("running", "done") else f"Slurm: {slurm_state}"
        return AttemptState(state, code, detail, never)
    if not slurm_answered:
        return AttemptState("unknown", None, "Slurm does not answer")
    said = log_says(record)
    if said:
        return AttemptState(said, None, "from the job output")
    return AttemptState("failed", None, f"Slurm no longer knows job {job_id} and it left no exit code")


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
    """A run's state from its attempts: done once every experiment is."""
    if not attempt_list:
        return "pending", "not submitted"
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
    open_jobs = [r["job_id"] for rs in records.values() for r in rs
                 if r["scheduler"] == "slurm" and r.get("state") not in FINAL and r.get("job_id")
                 and read_exit_file(workspace.exit_file(r["run_id"], r["attempt"])) is None]
    try:
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
