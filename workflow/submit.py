"""`nbhbench submit`: runs a generated campaign's runs (docs/workflow.md).

scheduler local: one run after another on this machine, with a progress
line and the time limit enforced. scheduler slurm: one sbatch job per run;
--wait follows them until they end. --resume reruns, for each failed or
timed-out run, only the experiments no earlier attempt finished. An
adaptive campaign goes on in rounds (workflow/adaptive.py).
"""
import collections
import contextlib
import os
import secrets
import shutil
import signal
import sys
import time

from gen.envfile import install_command, read_environment
from gen import registry, whole_files
from gen.errors import FileError, NbhError, display_path
from gen.jobscript import attempt_job_script, job_name
from gen.settings import parse_time_limit
from gen.workspace import now_utc
from workflow import adaptive as adaptive_rounds, interleave, local, result_rows, slurm
from workflow.attempts import (KERNEL_EXIT_NO_SPACE, attempt_done_ids, input_ids, new_record, process_start,
                               run_statuses, submit_lock, write_json)

EXIT_FAILED = 1
EXIT_TOO_LARGE = 2
EXIT_NOT_BUILT = 4
EXIT_NO_SCHEDULER = 5
EXIT_NO_SPACE = FileError.code
EXIT_INTERRUPTED = 130


class Launch(collections.namedtuple("Launch", "workspace info env status label")):
    """One run to submit: its workspace (a joint sequence has several), their
    campaign record and environment, its RunStatus, and what the progress
    line puts before its run id ("" in a campaign of its own)."""


class Interrupted(NbhError):
    """Ctrl-C, SIGTERM or SIGHUP during a submit: which run, and how to go on."""

    code = EXIT_INTERRUPTED


def environment(workspace, info):
    """The environment file as generated (the workspace's copy)."""
    return read_environment(str(workspace.env / info["env"]))


def check_ready(workspace, info):
    kernel = info["kernel"]
    if not os.access(kernel, os.X_OK):
        install = install_command(environment(workspace, info))
        raise NbhError(f"{display_path(kernel)} is not built"
                       + (f": {info['library']} is not installed (run: {install}, then " if install else " (run: ")
                       + f"nbhbench build --env {info['env']})", EXIT_NOT_BUILT)
    if info["scheduler"] == "slurm" and not shutil.which("sbatch"):
        raise NbhError(f"environment {info['env']} submits to Slurm, but there is no sbatch here "
                       "(generate with a local environment to run on this machine)", EXIT_NO_SCHEDULER)


def choose(statuses, resume):
    """The runs to submit now: never submitted ones; with --resume also failed and timed-out ones."""
    return [s for s in statuses if not s.attempts or (resume and s.state in ("failed", "timeout"))]


def write_resume_input(workspace, status, number):
    """inputs/RUN.aN.csv: the run's input without the experiments already
    finished, each of the others from its first round no attempt measured
    whole (first_round; inputs before the rounds have no such column)."""
    run_id = status.run_id
    original = workspace.input(run_id, 1)
    lines = original.read_text(encoding="utf-8").splitlines()
    header_at = next(i for i, line in enumerate(lines) if line.strip() and not line.startswith("#"))
    names = lines[header_at].split(",")
    column = names.index("id")
    first = names.index("first_round") if "first_round" in names else None

    def resumed(line):
        fields = line.split(",")
        if first is not None:
            measured = status.rounds.get(int(fields[column]), set())
            fields[first] = str(next(r for r in range(1, len(measured) + 2) if r not in measured))
        return ",".join(fields)

    body = [resumed(line) for line in lines[header_at + 1:]
            if line.strip() and int(line.split(",")[column]) not in status.done]
    comment = (f"# nbhbench input: campaign {workspace.name}, run {run_id}, attempt {number} (resume): "
               f"the {len(body)} experiments earlier attempts did not finish, in the run's order")
    whole_files.write_text(workspace.input(run_id, number), "\n".join([comment, lines[header_at]] + body) + "\n")
    return len(body)


def prepare_attempt(workspace, info, env, status):
    """Writes what the next attempt of a run needs; returns its record."""
    run_id = status.run_id
    number = status.attempts[-1][0]["attempt"] + 1 if status.attempts else 1
    if number > 1:
        planned = write_resume_input(workspace, status, number)
    else:
        planned = len(input_ids(workspace.input(run_id, 1)))
    job = workspace.job(run_id, number)
    if number > 1 or not job.is_file():
        whole_files.write_text(job, attempt_job_script(workspace, info, env, status.run, number), mode=0o755)
    record = new_record(workspace, run_id, number, info["scheduler"])
    record["experiments"] = planned
    return record


def duration(seconds):
    seconds = int(seconds)
    return f"{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


class Progress:
    """The progress line of local runs: run i/N, experiments done, ETA."""

    def __init__(self, runs, experiments):
        self.runs, self.total = runs, experiments
        self.finished = 0          # experiments of the runs that ended
        self.start = time.monotonic()
        self.tty = sys.stdout.isatty()
        self.last_print = None     # into a pipe: the first line at once, then one each 30 s

    def line(self, index, run_id, done, planned):
        elapsed = time.monotonic() - self.start
        so_far = self.finished + done
        eta = duration(elapsed / so_far * (self.total - so_far)) if so_far else "--"
        return (f"run {index}/{self.runs} {run_id}: {done}/{planned} experiments | "
                f"campaign {so_far}/{self.total} | elapsed {duration(elapsed)} | ETA {eta}")

    def show(self, index, run_id, done, planned):
        text = self.line(index, run_id, done, planned)
        now = time.monotonic()
        if self.tty:
            print(f"\r\033[K{text}", end="", flush=True)
        elif self.last_print is None or now - self.last_print >= 30:
            print(text, flush=True)
            self.last_print = now

    def end_run(self, index, run_id, state, done, planned, detail):
        text = self.line(index, run_id, done, planned)
        self.finished += planned
        note = f" ({detail})" if detail else ""
        print(f"{chr(13) + chr(27) + '[K' if self.tty else ''}{text} -> {state}{note}", flush=True)
        self.last_print = time.monotonic()


def rows_written(record, nrep):
    """Experiments in the results file so far (for the progress line only)."""
    try:
        with open(record["prefix"] + ".results.csv", "rb") as f:
            return max(f.read().count(b"\n") - 1, 0) // nrep
    except OSError:
        return 0


def interrupt_on_term():
    """SIGTERM and SIGHUP end a local submit like Ctrl-C: the running job is ended and recorded."""
    def handler(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGHUP, handler)


def submit_local(launches):
    """Runs LAUNCHES one after another, in their order."""
    interrupt_on_term()
    progress = Progress(len(launches), sum(launch.status.total - len(launch.status.done) for launch in launches))
    expected_of = {}
    for index, (workspace, info, env, status, label) in enumerate(launches, start=1):
        time_limit = parse_time_limit(info["settings"]["time_limit"])
        nrep = int(info["settings"]["nrep"])
        if workspace.path not in expected_of:
            expected_of[workspace.path] = result_rows.Expected.of(workspace.experiments())
        expected = expected_of[workspace.path]
        shown = label + status.run_id
        try:
            record = prepare_attempt(workspace, info, env, status)
            path = workspace.record(status.run_id, record["attempt"])
            write_json(path, record)
        except FileError as e:
            raise e.with_note(f"run {status.run_id} was not started; free space, then: "
                              f"nbhbench submit --resume {workspace.name}") from None
        planned = record["experiments"]
        progress.show(index, shown, 0, planned)
        try:
            state, code, detail = local.run(
                workspace, record, time_limit,
                on_tick=lambda: progress.show(index, shown, rows_written(record, nrep), planned))
        except KeyboardInterrupt:
            record.update(state="failed", exit_code=None, detail="interrupted", ended=now_utc())
            print()
            with contextlib.suppress(NbhError):  # the record says it; on a full disk the log cannot
                write_json(path, record)
                whole_files.append_text(record["log"], f"\nnbhbench: *** run {status.run_id} attempt "
                                        f"{record['attempt']} INTERRUPTED AT {record['ended']} ***\n")
            raise Interrupted(f"interrupted: run {status.run_id} attempt {record['attempt']} stopped; "
                              "its finished experiments are kept; go on with: "
                              f"nbhbench submit --resume {workspace.name}") from None
        record.update(state=state, exit_code=code, detail=detail, ended=now_utc())
        out_of_space = NbhError(f"run {status.run_id}: {detail}; free space, then: "
                                f"nbhbench submit --resume {workspace.name}", EXIT_NO_SPACE)
        try:
            write_json(path, record)
        except FileError as e:  # status finds the attempt ended all the same
            if code == KERNEL_EXIT_NO_SPACE:
                raise out_of_space from None
            raise e.with_note(f"run {status.run_id} ended {state}; free space, then: "
                              f"nbhbench submit --resume {workspace.name}") from None
        done = len(attempt_done_ids(record, expected))
        progress.end_run(index, shown, state, done, planned, detail)
        if code == KERNEL_EXIT_NO_SPACE:  # every later run would stop the same way
            raise out_of_space


def check_partition(env, chosen):
    """A deployment on more nodes than the partition has (or allows a job)
    can never run: one line before anything is submitted. Skipped when
    Slurm does not answer or does not know the partition (sbatch says so)."""
    try:
        part = slurm.partition(env.partition)
    except slurm.Unreachable:
        return
    if not part or not part.get("TotalNodes", "").isdigit():
        return
    name, total, most = part.get("PartitionName", env.partition), int(part["TotalNodes"]), part.get("MaxNodes", "")
    limit = min(total, int(most)) if most.isdigit() else total
    too_large = sorted({(int(s.run["nodes"]), s.run["deployment"]) for s in chosen if int(s.run["nodes"]) > limit})
    if too_large:
        nodes, deployment = too_large[-1]
        allows = f" and allows {most} per job" if most.isdigit() and int(most) < total else ""
        raise NbhError(f"deployment {deployment} needs {nodes} nodes, but Slurm partition {name} has {total}{allows} "
                       f"(scontrol show partition {name}); generate again with deployments that fit "
                       f"(--set deployments=...) or another partition", EXIT_TOO_LARGE)


@contextlib.contextmanager
def signals_held():
    """Ctrl-C, SIGTERM and SIGHUP (a lost terminal) wait while the block
    runs; yields the list of those that came, for the caller to stop on
    once the block is done. A signal the caller ignores stays ignored."""
    caught = []
    previous = {}
    for number in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        if signal.getsignal(number) != signal.SIG_IGN:
            previous[number] = signal.signal(number, lambda signum, frame: caught.append(signum))
    try:
        yield caught
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def submit_slurm(launches, after=None):
    """Hands each launch's job to sbatch, in their order. The attempt's record is written
    first, with the name the job is submitted under (workflow/attempts.py:
    an intent), then sbatch, then the job id; a signal waits until the id is
    recorded, and a submit killed in between leaves the intent, from which
    the next status or submit finds the job by its name. So no job goes
    untracked, and no attempt is submitted twice. AFTER: chain the jobs
    (an interleaved sequence): each waits for the one before it to end
    (sbatch --dependency=afterany), the first for job AFTER ("" for none)."""
    for workspace, _, env, _, _ in launches:
        check_partition(env, [launch.status for launch in launches if launch.workspace is workspace])
    interrupt_on_term()
    submitted = []
    try:
        for workspace, info, env, status, _ in launches:
            submit_job(workspace, info, env, status, submitted,
                       after=None if after is None else (submitted[-1] if submitted else after))
    except KeyboardInterrupt:
        print(flush=True)
        done = f"{len(submitted)} of {len(launches)} runs submitted" + (f" (jobs {', '.join(submitted)})"
                                                                        if submitted else "")
        raise Interrupted(f"interrupted: {done}; every submitted job is recorded; the others go with: "
                          f"nbhbench submit {launches[0].workspace.name}") from None


def submit_job(workspace, info, env, status, submitted, after=None):
    """Submits the next attempt of the run of STATUS and adds its job id to
    SUBMITTED; a signal that came meanwhile stops the submit after that.
    AFTER: the job id it must wait for (recorded as the record's after)."""
    try:
        record = prepare_attempt(workspace, info, env, status)
        record["job_name"] = f"{job_name(info['campaign'], status.run_id)}.a{record['attempt']}.{secrets.token_hex(3)}"
        if after:
            record["after"] = after
        path = workspace.record(status.run_id, record["attempt"])
        write_json(path, record)
    except FileError as e:
        raise e.with_note(f"run {status.run_id} was not submitted; free space, then: "
                          f"nbhbench submit {workspace.name}") from None

    def started(pid):  # the intent keeps sbatch's pid: status leaves it while sbatch lives
        record.update(sbatch_pid=pid, sbatch_start=process_start(pid))
        write_json(path, record)

    with signals_held() as caught:
        try:
            record["job_id"] = slurm.sbatch(record["job"], record["job_name"], started, after=after)
        except slurm.Refused:
            os.unlink(path)  # no job: the run is not submitted
            raise
        except FileError as e:  # sbatch did not run
            os.unlink(path)
            raise e.with_note(f"run {status.run_id} was not submitted; free space, then: "
                              f"nbhbench submit {workspace.name}") from None
        try:
            write_json(path, record)
        except FileError as e:  # the intent names the job: status and submit find it by its name
            raise e.with_note(f"job {record['job_id']} of run {status.run_id} was submitted; its record gets the "
                              f"job id at the next nbhbench status {workspace.name}; free space, then: "
                              f"nbhbench submit {workspace.name}") from None
    submitted.append(record["job_id"])
    print(f"{status.run_id}: submitted job {record['job_id']} "
          f"(attempt {record['attempt']}, {record['experiments']} experiments)", flush=True)
    if caught:
        raise KeyboardInterrupt


def cancel_never_starting(workspace, statuses):
    """Cancels the jobs Slurm can never start and records them as failed; returns
    one line per such run."""
    lines = []
    for s in statuses:
        record, state, _ = s.last if s.attempts else (None, None, None)
        if s.state != "pending" or not state or not state.never_starts:
            continue
        job = record.get("job_id", "")
        try:
            slurm.cancel(job)
        except slurm.Unreachable as e:
            raise NbhError(f"run {s.run_id}: Slurm can never start job {job} ({state.never_starts}), "
                           f"and cancelling it failed: {e}", EXIT_FAILED) from None
        detail = f"Slurm can never start it: {state.never_starts}; cancelled (job {job})"
        record.update(state="failed", exit_code=None, detail=detail, ended=now_utc())
        write_json(workspace.record(s.run_id, record["attempt"]), record)
        lines.append(f"run {s.run_id}: Slurm can never start job {job}: {state.never_starts}; cancelled it")
    return lines


def show_changes(statuses, seen):
    """One line for each run whose state or experiments changed since SEEN."""
    for s in statuses:
        now = (s.state, len(s.done))
        if s.attempts and seen.get(s.run_id) != now:
            seen[s.run_id] = now
            job = s.last[0].get("job_id", "")
            print(f"{s.run_id}: {s.state}, {len(s.done)}/{s.total} experiments"
                  f"{f' (job {job})' if job else ''}{f' - {s.detail}' if s.detail and s.state != 'running' else ''}",
                  flush=True)


def active(statuses):
    return [s for s in statuses if s.attempts and s.state in ("pending", "running", "unknown")]


def wait(workspace, poll):
    """Follows the campaign's runs until none is pending or running. A job
    Slurm can never start is cancelled, and the wait ends with an error at
    once, naming the reason: the campaign asks for something this cluster
    cannot give."""
    seen, unanswered = {}, 0
    while True:
        statuses = run_statuses(workspace)
        refused = cancel_never_starting(workspace, statuses)
        if refused:
            statuses = run_statuses(workspace)
            show_changes(statuses, seen)
            others = active(statuses)
            follow = (f"; {len(others)} other runs go on in Slurm (follow them: nbhbench submit --wait "
                      f"{workspace.name})" if others else "")
            more = f" (and {len(refused) - 1} more runs)" if len(refused) > 1 else ""
            raise NbhError(f"{refused[0]}{more}{follow}", EXIT_FAILED)
        show_changes(statuses, seen)
        unknown = [s for s in statuses if s.state == "unknown"]
        unanswered = unanswered + 1 if unknown else 0
        if unanswered * poll > 300:
            raise NbhError(f"Slurm has not answered for 5 minutes ({unknown[0].detail}); "
                           "see nbhbench status later", EXIT_FAILED)
        if not active(statuses):
            return statuses
        time.sleep(poll)


def summary(workspace, statuses):
    counts = {}
    for s in statuses:
        counts[s.state] = counts.get(s.state, 0) + 1
    text = ", ".join(f"{n} {state}" for state, n in counts.items())
    stopped = counts.get("failed", 0) + counts.get("timeout", 0)
    hint = (f"; the failed or timed-out runs' missing experiments go on with: nbhbench submit --resume "
            f"{workspace.name}" if stopped else "")
    print(f"{workspace.name}: {len(statuses)} runs: {text}{hint}", flush=True)
    bad = [s for s in statuses if s.state != "done"]
    return EXIT_FAILED if bad else 0


def poll_seconds():
    """NBH_POLL_SECONDS within its bound of registry/limits.csv (default 2)."""
    bound = registry.load().bounds["poll_seconds"]
    text = os.environ.get("NBH_POLL_SECONDS", "")
    if not text:
        return bound.default
    try:
        value = float(text)
    except ValueError:
        raise NbhError(f"NBH_POLL_SECONDS: '{text}' is not a number of seconds") from None
    problem = bound.problem(value, "NBH_POLL_SECONDS:")
    if problem:
        raise NbhError(problem)
    return value


@contextlib.contextmanager
def lock(workspace):
    """Holds the workspace's submit lock while the block runs: two submits
    at once would both start the same runs."""
    with submit_lock(workspace) as held:
        if not held:
            raise NbhError(f"another nbhbench submit is running for {workspace.name}; "
                           f"see nbhbench status {workspace.name}", EXIT_FAILED)
        yield


def submit_due(workspace, info, env, resume, quiet=False, free_order=False):
    """Submits the runs due now (choose), in the plan's order; says so when
    there are none. Through Slurm the runs of an interleaved sequence are
    chained (unless FREE_ORDER): each job waits for the one before it."""
    statuses = run_statuses(workspace)
    chosen = choose(statuses, resume)
    if not chosen:
        if quiet:
            return
        active = [s for s in statuses if s.state in ("pending", "running") and s.attempts]
        undone = [s for s in statuses if s.state in ("failed", "timeout")]
        note = (f"; {len(undone)} failed or timed out: nbhbench submit --resume {workspace.name}"
                if undone and not resume else "")
        print(f"{workspace.name}: nothing to submit ({len(active)} pending or running, "
              f"{sum(s.state == 'done' for s in statuses)} done{note})")
        return
    launches = [Launch(workspace, info, env, s, "") for s in chosen]
    if info["scheduler"] == "local":
        submit_local(launches)
    else:
        chained = not free_order and any(s.run.get("interleave") for s in chosen)
        submit_slurm(launches, after=last_active_job(statuses) if chained else None)


def last_active_job(statuses):
    """The job id of the last run (in STATUSES' order) whose job is pending or
    running: a chain goes on after it; "" where none is."""
    jobs = [s.last[0].get("job_id", "") for s in statuses if s.attempts and s.state in ("pending", "running")]
    return next((job for job in reversed(jobs) if job), "")


def submit(workspace, wait_for_end=False, resume=False, poll=None, adaptive=False, interleave_with=(),
           free_order=False):
    if wait_for_end and poll is None:
        poll = poll_seconds()  # a bad NBH_POLL_SECONDS is refused before anything is submitted
    info = workspace.info()
    check_ready(workspace, info)
    members = interleave.members(workspace, interleave_with)
    if members:
        return submit_joint(members, wait_for_end, resume, poll, free_order)
    with lock(workspace):
        env = environment(workspace, info)
        record = adaptive_rounds.start(workspace, info, adaptive)
        if record is not None:
            return submit_rounds(workspace, info, env, record, wait_for_end, resume, poll)
        submit_due(workspace, info, env, resume, free_order=free_order)
    if info["scheduler"] == "local":
        return summary(workspace, run_statuses(workspace))
    if wait_for_end:
        return summary(workspace, wait(workspace, poll))
    return 0


def submit_joint(members, wait_for_end, resume, poll, free_order):
    """The runs due of an interleaved sequence of several workspaces
    (workflow/interleave.py), in the sequence's order: one after another
    locally, chained through Slurm (unless FREE_ORDER); each member's
    submit lock held, its summary printed."""
    infos = [m.info() for m in members]
    for member, info in zip(members, infos):
        check_ready(member, info)
    with contextlib.ExitStack() as locks:
        for member in members:
            locks.enter_context(lock(member))
        interleave.plan_if_new(members)
        envs = [environment(m, i) for m, i in zip(members, infos)]
        statuses = [{s.run_id: s for s in run_statuses(m)} for m in members]
        due = [{s.run_id for s in choose(list(of.values()), resume)} for of in statuses]
        libraries = [i["library"] for i in infos]
        labels = [f"{i['library']}:" if libraries.count(i["library"]) == 1 else f"{m.name}[{k}]:"
                  for k, (m, i) in enumerate(zip(members, infos))]
        launches = [Launch(members[k], infos[k], envs[k], statuses[k][run_id], labels[k])
                    for k, run_id in interleave.sequence(members) if run_id in due[k]]
        print(f"{members[0].name}: interleaved with "
              f"{', '.join(display_path(m.path) for m in members[1:])} (sequence "
              f"{interleave.read_record(members[0])['interleave']}): {len(launches)} runs to submit", flush=True)
        if launches and infos[0]["scheduler"] == "local":
            submit_local(launches)
        elif launches:
            ordered = [statuses[k][run_id] for k, run_id in interleave.sequence(members)]
            submit_slurm(launches, after=None if free_order else last_active_job(ordered))
    if infos[0]["scheduler"] == "slurm" and not wait_for_end:
        return 0
    codes = [summary(m, wait(m, poll) if infos[0]["scheduler"] == "slurm" else run_statuses(m)) for m in members]
    return max(codes)


def submit_rounds(workspace, info, env, record, wait_for_end, resume, poll):
    """An adaptive campaign (workflow/adaptive.py): each round submitted as
    any runs are; locally, and through Slurm with --wait, round after round."""
    first = [True]

    def batch():
        submit_due(workspace, info, env, resume, quiet=not first[0])  # later rounds always have runs due
        first[0] = False
        if info["scheduler"] == "slurm" and wait_for_end:
            statuses = wait(workspace, poll)
        else:
            statuses = run_statuses(workspace)
        if info["scheduler"] == "local" or wait_for_end:
            summary(workspace, statuses)
        return statuses
    return adaptive_rounds.follow(workspace, info, env, record, batch)
