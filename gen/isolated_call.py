"""Runs a campaign's own Python (experiments.py) in a child process, with a
time limit, so that nothing it does can end or hang `generate`.

A campaign file is user code: it may call sys.exit() or os._exit(), loop
forever, or crash the interpreter. call_isolated(function, seconds, what)
forks; the child runs FUNCTION and sends back its result (pickled) or the
one-line message of an NbhError; the parent waits at most SECONDS and
turns every other ending into one NbhError naming WHAT:

    WHAT: exited while defining the experiments (exit status 0)
    WHAT: did not finish within 120 s (...)

The child is its own process group: on a time limit or Ctrl-C the parent
kills the group, and whatever the campaign code started with it.
"""
import os
import pickle
import select
import signal
import sys
import time

from gen.errors import NbhError


def _child(function, write_end):
    try:
        payload = ("ok", function())
    except NbhError as e:
        payload = ("error", str(e), e.code)
    except BaseException as e:  # noqa: B036 - SystemExit and everything else become a message
        payload = ("error", f"{type(e).__name__}: {e}", 2)
    try:
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:  # an unpicklable result is the campaign's mistake too
        data = pickle.dumps(("error", f"its result cannot be passed on ({type(e).__name__}: {e})", 2))
    sys.stdout.flush()
    sys.stderr.flush()
    with os.fdopen(write_end, "wb") as pipe:
        pipe.write(data)
    os._exit(0)


def _describe(status):
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        return f"killed by signal {number} ({signal.Signals(number).name})"
    return f"exit status {os.waitstatus_to_exitcode(status)}"


def _kill(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    os.waitpid(pid, 0)


def call_isolated(function, seconds, what, exited, limit_hint=""):
    """FUNCTION() run in a child process within SECONDS; its result, or an
    NbhError: its own, "WHAT: EXITED (exit status N)" when it ended without
    a result, or "WHAT: did not finish within SECONDS s (LIMIT_HINT)"."""
    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(read_end)
        os.setpgid(0, 0)
        _child(function, write_end)
    os.close(write_end)
    try:
        os.setpgid(pid, pid)  # also here: no race with the child's own call
    except OSError:
        pass
    chunks, deadline, finished = [], time.monotonic() + seconds, False
    try:
        with os.fdopen(read_end, "rb") as pipe:
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                ready, _, _ = select.select([pipe], [], [], left)
                if not ready:
                    continue
                chunk = os.read(pipe.fileno(), 1 << 20)
                if not chunk:
                    finished = True
                    break
                chunks.append(chunk)
    except BaseException:
        _kill(pid)
        raise
    if not finished:
        _kill(pid)
        raise NbhError(f"{what}: did not finish within {seconds:g} s{f' ({limit_hint})' if limit_hint else ''}")
    _, status = os.waitpid(pid, 0)
    try:
        payload = pickle.loads(b"".join(chunks))
    except Exception:
        raise NbhError(f"{what}: {exited} ({_describe(status)})") from None
    if payload[0] == "ok":
        return payload[1]
    raise NbhError(payload[1], payload[2])
