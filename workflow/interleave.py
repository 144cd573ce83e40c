"""Interleaved launches: the order runs are submitted in, sequences that
span several workspaces (two libraries, two releases), and the order the
runs really started in (docs/workflow.md, "Interleaved launches").

Sides measured in different launches (two parameter sets, two libraries)
can be compared launch by launch only where their launches ran close
together. So runs are submitted in slots: a slot holds one launch of every
parameter set (and, in a joint sequence, of every workspace) of one
deployment, in a random order drawn from a recorded seed, and slot k + 1
is submitted after slot k. A campaign with several sets is such a
sequence from generate on (gen.runs.plan_runs); `submit A
--interleave-with B C` makes one sequence of the runs of several
workspaces before any of them has run, recorded in each of them
(interleave.json) and in their runs.csv (columns interleave and slot).

    joint_order(member_runs, seed)        the joint sequence's slots (pure)
    members(workspace, others)            the members of WORKSPACE's joint sequence
    plan_if_new(members)                  records a new one in every member
    launch_orders(workspace, statuses)    {run id: the position its first attempt really started at}
    add_launch_order(rows, ...)           the archive's runs.csv column launch_order
"""
import datetime
import hashlib
import math
import pathlib

import numpy as np

from gen import records, whole_files
from gen.errors import NbhError, display_path
from gen.runs import interleave_id
from gen.workspace import Workspace, now_utc, work_root
from workflow.attempts import prov

RECORD = "interleave.json"
# What runs.csv of an archive says of it (docs/archive.md).
COLUMNS = ("interleave", "slot", "launch_order")
RECORD_FIELDS = {"format": int, "interleave": str, "seed": int, "members": list, "order": list}


def member_workspace(argument):
    """The workspace ARGUMENT names: the folder of a generated workspace
    (work/demo-mpich/demo), or a campaign name under the work folder."""
    path = pathlib.Path(argument)
    if not (path / "campaign.json").is_file():
        path = work_root() / argument
    if not (path / "campaign.json").is_file():
        raise NbhError(f"--interleave-with {argument}: no generated workspace there (give the folder that "
                       "holds its campaign.json, e.g. work/demo-mpich/demo, or a campaign name under "
                       f"{display_path(work_root())})")
    return Workspace(path.resolve())


def block_seed(seed, run, deployment):
    text = f"{seed}/{run}/{deployment}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:8], "big") >> 1


def joint_order(member_runs, seed):
    """The joint sequence of MEMBER_RUNS (per member, its runs.csv rows in
    their order): [(member index, run id, slot)]. A slot holds, for one run
    number and deployment, every member's runs of it (each parameter set
    of each member), in a random order drawn from SEED; slots follow run
    number, then the deployments in the order the members name them."""
    deployments, blocks = [], {}
    for member, runs in enumerate(member_runs):
        for run in runs:
            if run["deployment"] not in deployments:
                deployments.append(run["deployment"])
            blocks.setdefault((int(run["run"]), run["deployment"]), []).append((member, run["run_id"]))
    order = []
    keys = sorted(blocks, key=lambda key: (key[0], deployments.index(key[1])))
    for slot, key in enumerate(keys, start=1):
        block = blocks[key]
        shuffled = np.random.Generator(np.random.PCG64(block_seed(seed, *key))).permutation(len(block))
        order += [(block[k][0], block[k][1], slot) for k in shuffled]
    return order


def read_record(workspace):
    """WORKSPACE's interleave.json (checked), or None where it has none."""
    path = workspace.path / RECORD
    if not path.is_file():
        return None
    return records.read_object(path, "interleave record", RECORD_FIELDS)


def recorded_members(workspace, record):
    members = [Workspace(pathlib.Path(m["path"]).resolve()) for m in record["members"]]
    missing = [m for m in members if not m.info_file.is_file()]
    if missing:
        raise NbhError(f"{display_path(workspace.path / RECORD)}: {workspace.name} is interleaved with "
                       f"{display_path(missing[0].path)}, which is gone (generate again to submit it alone)")
    return members


def members(workspace, others):
    """The members of WORKSPACE's joint sequence, in the sequence's order:
    those its interleave.json names, or WORKSPACE and OTHERS for a new one
    (checked; plan_if_new records it); [] where it has none and OTHERS
    names none. One line for a sequence other than the one recorded."""
    record = read_record(workspace)
    if record is not None:
        recorded = recorded_members(workspace, record)
        if others and {m.path for m in recorded} != {workspace.path.resolve()} | \
                {member_workspace(o).path for o in others}:
            raise NbhError(f"{workspace.name} was interleaved with "
                           f"{', '.join(display_path(m.path) for m in recorded if m.path != workspace.path.resolve())}"
                           f" (sequence {record['interleave']}); submit it without --interleave-with, or generate again")
        return recorded
    if not others:
        return []
    new = [Workspace(workspace.path.resolve())] + [member_workspace(o) for o in others]
    check_new(new)
    return new


def plan_if_new(members):
    """Records the joint sequence of MEMBERS (members) unless it is recorded
    (each member's submit lock held by the caller): checked again under the
    locks, in case a run was submitted meanwhile."""
    if read_record(members[0]) is None:
        check_new(members)
        plan(members)


def check_new(members):
    paths = [m.path for m in members]
    twice = next((p for p in paths if paths.count(p) > 1), None)
    if twice:
        raise NbhError(f"--interleave-with: {display_path(twice)} is named twice")
    infos = [m.info() for m in members]
    if len({i["scheduler"] for i in infos}) > 1:
        raise NbhError("--interleave-with: the workspaces submit to different schedulers ("
                       + ", ".join(f"{m.name} {i['scheduler']}" for m, i in zip(members, infos))
                       + "): a sequence runs one way")
    for member in members:
        if (member.path / "adaptive.json").is_file():
            raise NbhError(f"--interleave-with: {display_path(member.path)} is an adaptive campaign, whose rounds "
                           "depend on its own looks: it cannot share a sequence")
        if read_record(member) is not None:
            raise NbhError(f"--interleave-with: {display_path(member.path)} is already interleaved with other "
                           "workspaces (its interleave.json)")
        submitted = [p for p in member.attempts.glob("*.json")] if member.attempts.is_dir() else []
        if submitted:
            raise NbhError(f"--interleave-with: {display_path(member.path)} has runs submitted before "
                           f"({len(submitted)} attempts): a sequence is interleaved from its first run on "
                           "(generate it again)")


def plan(members):
    """Plans the joint sequence of MEMBERS and records it: interleave.json
    in each, and each member's runs.csv in the sequence's order with its
    interleave id and slots."""
    first = members[0].info()
    names = "+".join(f"{m.info()['campaign']}:{m.info()['library']}" for m in members)
    seed = block_seed(first["settings"].get("seed", 0), "interleave", names)
    member_runs = [m.runs() for m in members]
    order = joint_order(member_runs, seed)
    ident = interleave_id(first["campaign"], now_utc())
    record = {"format": 1, "interleave": ident, "seed": seed, "created": now_utc(),
              "members": [{"path": str(m.path), "campaign": m.info()["campaign"], "library": m.info()["library"]}
                          for m in members],
              "order": [{"member": k, "run_id": run_id, "slot": slot} for k, run_id, slot in order]}
    for k, member in enumerate(members):
        rows = {run["run_id"]: run for run in member_runs[k]}
        ordered = [dict(rows[run_id], interleave=ident, slot=slot) for m, run_id, slot in order if m == k]
        columns = list(member_runs[k][0]) + [c for c in ("interleave", "slot") if c not in member_runs[k][0]]
        whole_files.write_json(member.path / RECORD, record)
        whole_files.write_csv(member.path / "runs.csv", columns, ordered)


def sequence(members):
    """[(member index, run id)] of the joint sequence of MEMBERS, as recorded."""
    record = read_record(members[0])
    return [(entry["member"], entry["run_id"]) for entry in record["order"]]


def start_time(workspace, record):
    """When attempt RECORD's launch started: (seconds since 1970, exact).
    From the start file its job script wrote, exact (to the nanosecond);
    for a job script that wrote none (one from before it, or one that
    failed before its first line), the local record's start or the
    kernel's start time, to the second (exact False); None where it never
    started."""
    path = workspace.start_file(record["run_id"], record["attempt"])
    try:
        return float(path.read_text(encoding="utf-8").strip()), True
    except (OSError, ValueError):
        pass
    for text in (record.get("started"), (prov(record) or {}).get("start_time")):
        try:
            when = datetime.datetime.strptime(str(text), "%Y-%m-%dT%H:%M:%SZ")
        except ValueError:
            continue
        return when.replace(tzinfo=datetime.timezone.utc).timestamp(), False
    return None


def launch_orders(workspace, statuses):
    """{run id: 1, 2, ...}: the order in which the runs of STATUSES (in plan
    order) really started, each by its first attempt that started; equal
    times keep the plan's order. Where some time is known only to the
    second, every time is compared to the second: a run that started
    0.3 s into a second is not after one known to have started in it (a
    fast run and the failed one after it, within one second). A run that
    never started has none."""
    started = []   # (seconds, exact, position in the plan, run id)
    for position, status in enumerate(statuses):
        times = [t for t in (start_time(workspace, record) for record, _, _ in status.attempts) if t is not None]
        if times:
            seconds, exact = times[0]
            started.append((seconds, exact, position, status.run_id))
    coarse = not all(exact for _, exact, _, _ in started)
    key = (lambda x: (math.floor(x[0]), x[2])) if coarse else (lambda x: (x[0], x[2]))
    return {run_id: k for k, (_, _, _, run_id) in enumerate(sorted(started, key=key), start=1)}


def add_launch_order(rows, workspace, statuses):
    """Each of ROWS (runs.csv of an archive, in STATUSES' order) gets its
    launch_order (launch_orders; empty where the run never started)."""
    orders = launch_orders(workspace, statuses)
    for row in rows:
        row["launch_order"] = orders.get(row["run_id"], "")
