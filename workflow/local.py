"""Runs one job script on this machine (scheduler local), like a batch job:
its own process session, its output in the log, the time limit enforced."""
import contextlib
import os
import signal
import subprocess
import time

from gen.workspace import now_utc
from workflow.attempts import failure_detail, process_start, write_json

KILL_WAIT = 5  # seconds between SIGTERM and SIGKILL, as Slurm's KillWait


def session_members(sid):
    """Processes of session SID (the job script and everything it started)."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[3]) == sid:
            members.append(int(entry))
    return members


def signal_session(sid, sig):
    for pid in session_members(sid):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def end_session(process):
    """SIGTERM to every process of the job, SIGKILL to what is left after KILL_WAIT."""
    signal_session(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + KILL_WAIT
    while time.monotonic() < deadline and session_members(process.pid):
        process.poll()
        time.sleep(0.1)
    signal_session(process.pid, signal.SIGKILL)
    process.wait()


def run(workspace, record, time_limit, on_tick=None, tick=0.5):
    """Runs the job of attempt RECORD; returns (state, exit code, detail)."""
    log = open(record["log"], "ab")
    process = subprocess.Popen(["bash", record["job"]], stdout=log, stderr=subprocess.STDOUT,
                               stdin=subprocess.DEVNULL, cwd=workspace.path, start_new_session=True)
    record.update(pid=process.pid, pid_start=process_start(process.pid), started=now_utc())
    try:
        write_json(workspace.record(record["run_id"], record["attempt"]), record)
    except BaseException:  # a record that cannot be written: the job must not run unrecorded
        end_session(process)
        log.close()
        raise
    start = time.monotonic()
    timed_out = False
    try:
        while process.poll() is None:
            if time.monotonic() - start > time_limit:
                timed_out = True
                with contextlib.suppress(OSError):  # a full disk: the record says it all the same
                    log.write(f"nbhbench: *** run {record['run_id']} attempt {record['attempt']} CANCELLED "
                              f"AT {now_utc()} DUE TO TIME LIMIT ({time_limit} s) ***\n".encode())
                    log.flush()
                end_session(process)
                break
            if on_tick:
                on_tick()
            time.sleep(tick)
    except BaseException:
        end_session(process)
        log.close()
        raise
    # Ranks a dying launcher left behind belong to the job: end them too.
    if session_members(process.pid):
        end_session(process)
    with contextlib.suppress(OSError):
        log.close()
    code = process.returncode if process.returncode >= 0 else 128 - process.returncode
    if timed_out:
        return "timeout", code, f"time limit of {time_limit} s reached"
    if code == 0:
        return "done", 0, ""
    return "failed", code, failure_detail(record, code)
