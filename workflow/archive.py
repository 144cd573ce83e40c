"""`nbhbench archive`: a campaign's results and provenance in one archive
directory, and `archive --verify` (the format: docs/archive.md)."""
import dataclasses
import errno
import hashlib
import json
import os
import pathlib
import sys
import time

from gen import whole_files
from gen.envfile import read_environment
from gen.errors import FileError, NbhError, display_path
from gen.graphs.files import FOLDER as GRAPH_FOLDER
from gen.registry import ROOT
from gen.workspace import archive_history, git_state, now_utc, pid_alive, write_csv
from workflow import interleave, layout, reorder, slurm
from workflow.attempts import prov, run_statuses
from workflow.result_rows import Expected, as_header, check_results, kept_rows

MANIFEST = "MANIFEST.sha256"
REQUIRED = ("archive.json", "experiments.csv", "runs.csv", "param_sets.csv")
RUN_COLUMNS = ["run_id", "deployment", "nodes", "ppn", "nprocs", "run", "param_set", "library",
               "library_version", "seed", "state", "experiments_done", "experiments_total", "job_id",
               "exit_code", "hosts", "rejected_rows", *layout.COLUMNS, *reorder.COLUMNS, "round",
               *interleave.COLUMNS]
EXIT_BUSY = 1
EXIT_EMPTY = 1
EXIT_CORRUPT = 1


def archives_root():
    return pathlib.Path(os.environ.get("NBH_ARCHIVES") or ROOT / "archives").absolute()


def remove_stale_partials(root):
    """Removes half-made archives (.NAME.partial-PID) whose archive was killed."""
    for path in root.glob(".*.partial-*"):
        pid = path.name.rsplit("-", 1)[-1]
        if path.is_dir() and pid.isdigit() and not pid_alive(int(pid)):
            whole_files.remove_tree(path)


def publish(staged, campaign, library):
    """Renames the finished archive STAGED to CAMPAIGN-LIBRARY-<time (UTC)>
    under the archives folder; never over one that exists."""
    root = staged.parent
    for _ in range(50):
        stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
        path = root / f"{campaign}-{library}-{stamp}"
        try:
            whole_files.publish_directory(staged, path)
            return path
        except FileError as e:
            if e.errno not in (errno.EEXIST, errno.ENOTEMPTY):
                raise
            time.sleep(0.2)
    raise NbhError(f"cannot create a new archive under {display_path(root)}", 1)


def read_rows(path):
    """Lines of a CSV file after its header, without an unfinished last line."""
    try:
        text = pathlib.Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None, []
    lines = text.split("\n")
    return lines[0], [line for line in lines[1:-1] if line]


def merge_rows(prefixes, suffix, keep):
    """Header and the rows of the attempts' files PREFIX + SUFFIX that
    KEEP(prefix, the row's fields by the file's header) accepts (each row
    once); None where no attempt has the file."""
    header, merged, seen = None, [], set()
    paths = [(prefix, prefix + suffix) for prefix in prefixes if os.path.isfile(prefix + suffix)]
    if not paths:
        return None, []
    for prefix, path in paths:
        head, rows = read_rows(path)
        header = header or head
        names = (head or "").split(",")
        for row in rows:
            if keep(prefix, dict(zip(names, row.split(",")))) and row not in seen:
                seen.add(row)
                merged.append(row)
    return header, merged


def measured_order(path):
    """{round: experiment ids in the order the kernel measured them} of a
    kernel results file: the kernel writes each experiment's rows of a round
    when it has measured them, round by round (docs/kernel.md), so the
    rows' order is the measured order. A file without a round column (a
    kernel before the rounds) is round 1; lines that are no row are skipped."""
    header, rows = read_rows(path)
    rounded = (header or "").startswith("id,rep,round,")
    order = {}
    for row in rows:
        fields = row.split(",", 3)
        if len(fields) < 3 or not fields[0].isdigit() or (rounded and not fields[2].isdigit()):
            continue
        order.setdefault(int(fields[2]) if rounded else 1, {}).setdefault(int(fields[0]), None)
    return {round_number: list(ids) for round_number, ids in order.items()}


def write_lines(path, header, rows):
    whole_files.write_text(path, "\n".join([header] + rows) + "\n")


def copy_if(source, target):
    if os.path.isfile(source):
        whole_files.make_directory(target.parent, exist_ok=True)
        whole_files.copy_file(source, target)
        return True
    return False


def merged_prov(status, done):
    """The provenance of a resumed run: the last attempt's, with every attempt listed."""
    provs = [(record, prov(record)) for record, _, _ in status.attempts]
    provs = [(record, p) for record, p in provs if p]
    if not provs:
        return None
    merged = dict(provs[-1][1])
    merged.update(status="complete" if len(done) >= status.total else "incomplete",
                  experiments=status.total, experiments_done=len(done))
    merged["attempts"] = [{"attempt": record["attempt"], "job_id": record.get("job_id", ""),
                           **{k: p.get(k) for k in ("status", "prefix", "input", "start_time", "end_time",
                                                    "experiments", "experiments_done", "hosts")}}
                          for record, p in provs]
    return merged


@dataclasses.dataclass
class RunResults:
    """What the archive took of a run's results files (result_rows.py)."""
    done: set
    rejected: list

    @property
    def malformed(self):
        return [r for r in self.rejected if r.malformed]


# A kernel run's files (kernel/output.h), each attempt's copied to attempts/
# for a resumed run.
KERNEL_FILES = (".results.csv", ".prov.json", ".cvars.csv", ".seeds.csv", ".reorder.csv", ".findings.csv",
                ".preparation.csv", ".ranks.csv", ".warmup.csv", ".delays.csv", ".lists.csv")
# Side tables with a row per experiment and round (round 1 in files before
# the rounds): each (id, round) from the attempt whose results were taken.
ROUND_TABLES = (".preparation.csv", ".ranks.csv", ".warmup.csv", ".delays.csv")
# Side tables with a row per experiment, written in its first round: from
# the attempt that measured the experiment's first round taken.
EXPERIMENT_TABLES = (".seeds.csv", ".reorder.csv")
ORDER_COLUMNS = ["round", "attempt", "position", "id"]


def results_of(status, target, expected):
    """results/RUN.*: the complete experiments of the run's attempts, merged,
    each row checked: every round of an experiment from the first attempt
    that has it whole (a resumed attempt measures the rounds an earlier one
    did not finish), an experiment complete once all its rounds are there;
    the rows not taken in RUN.rejected.csv; the side tables' rows of each
    experiment round from the attempt its results came from; the order each
    round was measured in, RUN.order.csv. Returns RunResults."""
    run_id, records = status.run_id, [record for record, _, _ in status.attempts]
    prefixes = [record["prefix"] for record in records]
    present = [record for record in records if os.path.isfile(record["prefix"] + ".results.csv")]
    if not present:
        return RunResults(set(), [])
    checks = [check_results(record["prefix"] + ".results.csv", expected, kept_rows(record["prefix"]))
              for record in present]
    # One header for the merged file, the attempts' widest: an attempt by an
    # older kernel (no round, no work_seconds, no delay_seconds) gets round 1
    # and empty cells there (as_header).
    header = max((c.header for c in checks), key=lambda h: h.count(","))
    rejected = []
    taken = {}   # id -> {round: lines}, each round from the first attempt that has it whole
    source = {}  # (id, round) -> the record of the attempt it was taken from
    for record, checked in zip(present, checks):
        rejected += checked.rejected
        for ident, rounds in checked.rounds.items():
            mine = taken.setdefault(ident, {})
            for round_number, lines in rounds.items():
                if round_number not in mine:
                    mine[round_number] = [line if checked.header == header else as_header(line, checked.header, header)
                                          for line in lines]
                    source[ident, round_number] = record
    done = {i for i, rounds in taken.items() if expected.all_rounds(i) <= set(rounds)}
    rows = [line for i, rounds in taken.items() if i in done for r in sorted(rounds) for line in rounds[r]]
    write_lines(target / f"{run_id}.results.csv", header, rows)
    write_order(target / f"{run_id}.order.csv", present, source, done)
    if rejected:
        whole_files.write_csv(target / f"{run_id}.rejected.csv", ["file", "line", "reason", "text"],
                              [{"file": os.path.basename(r.path), "line": r.line, "reason": r.reason,
                                "text": r.text[:200]} for r in rejected])
    if len(records) == 1:
        copy_if(prefixes[0] + ".prov.json", target / f"{run_id}.prov.json")
    else:
        merged = merged_prov(status, done)
        if merged:
            whole_files.write_json(target / f"{run_id}.prov.json", merged)
    cvars = [p + ".cvars.csv" for p in prefixes if os.path.isfile(p + ".cvars.csv")]
    if cvars:
        copy_if(cvars[-1], target / f"{run_id}.cvars.csv")
    # the side tables: whose rows of an experiment round are kept
    taken_from = {(i, r): record["prefix"] for (i, r), record in source.items() if i in done}
    first_from = {i: taken_from[i, min(taken[i])] for i in done}

    def this_round(prefix, row):
        ident, round_number = row.get("id", ""), row.get("round") or "1"
        return (ident.isdigit() and round_number.isdigit()
                and taken_from.get((int(ident), int(round_number))) == prefix)

    def first_round(prefix, row):
        ident = row.get("id", "")
        return ident.isdigit() and first_from.get(int(ident)) == prefix

    for suffix in (*EXPERIMENT_TABLES, *ROUND_TABLES, ".findings.csv"):
        keep = this_round if suffix in ROUND_TABLES else first_round if suffix in EXPERIMENT_TABLES else \
            (lambda prefix, row: True)   # a finding stands whether or not its rows were kept
        header, lines = merge_rows(prefixes, suffix, keep)
        if header is not None:
            write_lines(target / f"{run_id}{suffix}", header, lines)
    return RunResults(done, rejected)


def write_order(path, present, source, done):
    """RUN.order.csv: for every experiment round in the run's results, the
    attempt it was taken from and its place in that attempt's measured
    order of the round (1: measured first; every experiment the attempt
    measured in the round counts, kept or not)."""
    rows = []
    for record in present:
        for round_number, ids in measured_order(record["prefix"] + ".results.csv").items():
            rows += [{"round": round_number, "attempt": record["attempt"], "position": position, "id": ident}
                     for position, ident in enumerate(ids, start=1)
                     if ident in done and source.get((ident, round_number)) is record]
    rows.sort(key=lambda r: (r["round"], r["attempt"], r["position"]))
    whole_files.write_csv(path, ORDER_COLUMNS, rows)


def log_of(status, target):
    """logs/RUN.log: what every attempt printed, one after the other."""
    parts = []
    for record, state, _ in status.attempts:
        try:
            text = pathlib.Path(record["log"]).read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = "(no output)\n"
        if len(status.attempts) > 1:
            job = f", job {record['job_id']}" if record.get("job_id") else ""
            text = f"=== nbhbench: attempt {record['attempt']}{job}: {state.state} ===\n" + text
        parts.append(text)
    if parts:
        whole_files.write_text(target / f"{status.run_id}.log", "".join(parts))


def attempt_files(workspace, status, target):
    """jobs/ and attempts/: each attempt's job script and record; for a
    resumed run also each attempt's own input and kernel files."""
    for record, _, _ in status.attempts:
        copy_if(record["job"], target / "jobs" / pathlib.Path(record["job"]).name)
        name = f"{status.run_id}.a{record['attempt']}"
        copy_if(workspace.record(status.run_id, record["attempt"]), target / "attempts" / f"{name}.json")
        copy_if(workspace.start_file(status.run_id, record["attempt"]), target / "attempts" / f"{name}.start")
        if len(status.attempts) > 1:
            copy_if(record["input"], target / "attempts" / f"{name}.input.csv")
            for suffix in KERNEL_FILES:
                copy_if(record["prefix"] + suffix, target / "attempts" / f"{name}{suffix}")


def library_version(provenance):
    """The first line of what MPI_Get_library_version said, spaces made single;
    empty where the library said nothing (or the provenance holds no text)."""
    text = provenance.get("library_version")
    lines = text.splitlines() if isinstance(text, str) else []
    return " ".join(lines[0].split()) if lines else ""


def run_row(info, status, taken, results):
    """The row of runs.csv of STATUS, its files already in the archive's RESULTS folder."""
    numbered = [(record["attempt"], prov(record)) for record, _, _ in status.attempts]
    provs = [p for _, p in numbered if p]
    hosts = []
    for p in provs:
        hosts += [h["name"] for h in p.get("hosts", []) if h.get("name") not in hosts]
    version = library_version(provs[-1]) if provs else ""
    last_state = status.last[1] if status.attempts else None
    state = status.state if status.attempts else "missing"
    if taken.malformed:
        state = "damaged"
    elif state == "done" and len(taken.done) < status.total:
        state = "failed"  # the kernel finished, but rows are missing from its file
    return dict(status.run, round=status.run.get("round") or 1, library=info["library"], library_version=version,
                state=state,
                experiments_done=len(taken.done), experiments_total=status.total,
                rejected_rows=len(taken.rejected),
                job_id=";".join(r.get("job_id", "") for r, _, _ in status.attempts if r.get("job_id")),
                exit_code="" if last_state is None or last_state.exit_code is None else last_state.exit_code,
                hosts=";".join(hosts), **layout.check(status.run, numbered).columns(),
                **reorder.summary(results / f"{status.run_id}.reorder.csv"))


def param_set_check(info, statuses, target):
    """Whether each library parameter of a run's set was in force. The
    kernel checked it through MPI_T before measuring (--expect-cvar: it
    knows the library's enumerations and refuses to run otherwise) and
    recorded what it found in RUN.prov.json. A parameter MPI_T cannot see
    (the environment's env_only, or read back empty) the kernel found in the
    processes' environment (--expect-env): verdict "set, not verifiable"."""
    findings = []
    sets = info["settings"]["param_sets"]
    env_copy = target / "env" / info["env"]
    param_env = read_environment(str(env_copy)).param_env if env_copy.is_file() else "{name}"
    for status in statuses:
        wanted = sets.get(status.run["param_set"], {})
        path = target / "results" / f"{status.run_id}.prov.json"
        if not wanted or not path.is_file():
            continue
        checked = {p["name"]: p for p in json.loads(path.read_text()).get("library_parameters", [])}
        for name, value in wanted.items():
            # --expect-env records the variable (param_env), --expect-cvar the name.
            got = checked.get(name) or checked.get(param_env.format(name=name))
            finding = {"run_id": status.run_id, "param_set": status.run["param_set"], "name": name,
                       "value": value, "reported": got["in_force"] if got else None,
                       "verdict": got.get("check", "in force") if got else "not checked"}
            if got and got.get("why"):
                finding["why"] = got["why"]
            findings.append(finding)
    return findings


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def archive_files(path):
    return sorted(p.relative_to(path).as_posix() for p in path.rglob("*") if p.is_file())


def write_manifest(path):
    lines = [f"{sha256(path / name)}  {name}" for name in archive_files(path) if name != MANIFEST]
    whole_files.write_text(path / MANIFEST, "\n".join(lines) + "\n")
    return len(lines)


def make_read_only(path):
    for name in archive_files(path):
        os.chmod(path / name, 0o444)


def archive(workspace):
    """Makes a new archive of WORKSPACE; returns its path."""
    info = workspace.info()
    statuses = run_statuses(workspace)
    archive_history(workspace)  # a damaged archived.json stops here, before any work
    busy = [s for s in statuses if s.attempts and s.state in ("pending", "running", "unknown")]
    if busy:
        raise NbhError(f"{len(busy)} run(s) of {workspace.name} are still pending or running "
                       f"({busy[0].run_id}: {busy[0].state}); archive when they end "
                       f"(nbhbench submit --wait {workspace.name}, or nbhbench status)", EXIT_BUSY)
    if not any(s.done for s in statuses):
        raise NbhError(f"nothing to archive: no run of {workspace.name} has finished an experiment "
                       f"(nbhbench status {workspace.name})", EXIT_EMPTY)
    unsubmitted = [s for s in statuses if not s.attempts]
    if unsubmitted:
        raise NbhError(f"{len(unsubmitted)} run(s) of {workspace.name} are pending, never submitted "
                       f"({unsubmitted[0].run_id}); submit them first (nbhbench submit {workspace.name}), "
                       "then archive", EXIT_BUSY)
    root = archives_root()
    whole_files.make_directory(root, exist_ok=True)
    remove_stale_partials(root)
    with whole_files.staged_directory(root / f"{workspace.name}-{info['library']}") as staged:
        try:
            rows, incomplete, checks, damaged, count = fill(staged, workspace, info, statuses)
        except FileError as e:
            where = pathlib.Path(e.path)
            inside = where.relative_to(staged).as_posix() if staged in where.parents else display_path(where)
            raise FileError(root, OSError(e.errno, e.reason),
                            f"writing {inside}; no archive was made, the workspace is unchanged") from None
        target = publish(staged, workspace.name, info["library"])
    try:
        remember(workspace, target)
    except FileError as e:
        note = "the archive is whole, but the workspace does not know it: generate will ask to archive again"
        print(f"nbhbench: archive: {e.with_note(note)}", file=sys.stderr)
    return target, rows, incomplete, checks, count, damaged


def fill(target, workspace, info, statuses):
    """Writes the archive of WORKSPACE into the (new, empty) directory TARGET."""
    for folder in ("inputs", "results", "logs", "jobs", "attempts", "env"):
        whole_files.make_directory(target / folder)
    whole_files.copy_tree(workspace.campaign, target / "campaign", skip=(), skip_suffixes=())
    whole_files.copy_file(workspace.env / info["env"], target / "env" / info["env"])
    for name in ("experiments.csv", "param_sets.csv"):
        whole_files.copy_file(workspace.path / name, target / name)
    # An adaptive campaign's plan and looks (workflow/adaptive.py; analyze reads the plan).
    copy_if(workspace.path / "adaptive.json", target / "adaptive.json")
    if (workspace.path / "looks").is_dir():
        whole_files.copy_tree(workspace.path / "looks", target / "looks")
    graphs = workspace.inputs / GRAPH_FOLDER
    if graphs.is_dir():  # the graph files the runs read and their descriptions (docs/archive.md)
        whole_files.copy_tree(graphs, target / "inputs" / GRAPH_FOLDER)
    expected = Expected.of(workspace.experiments())
    rows, damaged = [], []
    for status in statuses:
        copy_if(workspace.input(status.run_id, 1), target / "inputs" / f"{status.run_id}.csv")
        taken = results_of(status, target / "results", expected)
        log_of(status, target / "logs")
        attempt_files(workspace, status, target)
        rows.append(run_row(info, status, taken, target / "results"))
        if taken.malformed:
            first = taken.malformed[0]
            damaged.append(f"{status.run_id}: {len(taken.malformed)} malformed row(s) in "
                           f"{display_path(first.path)} (line {first.line}: {first.reason})")
    interleave.add_launch_order(rows, workspace, statuses)
    write_csv(target / "runs.csv", RUN_COLUMNS, rows)
    checks = param_set_check(info, statuses, target)
    incomplete = [f"{r['run_id']} {r['state']} ({r['experiments_done']}/{r['experiments_total']})"
                  for r in rows if r["state"] != "done"]
    # Its own name makes each archive's manifest its own: two archives of
    # one workspace made within one second were byte-identical, and read
    # as copies of one archive rather than as archives of one launch.
    meta = {"format": 1, "name": target.name, "campaign": workspace.name, "campaign_source": info["campaign_source"],
            "env": info["env"], "library": info["library"], "scheduler": info["scheduler"],
            "git_commit": git_state(), "generated_at_commit": info["git_commit"], "created": now_utc(),
            "generated": info["generated"], "workspace": str(workspace.path),
            "settings": info["settings"], "set": info["set"], "launch_env": info["launch_env"],
            "runs": len(rows), "runs_done": sum(r["state"] == "done" for r in rows),
            "incomplete_runs": incomplete, "damaged_runs": damaged, "param_set_check": checks,
            "left_out": info.get("left_out", {}),
            "slurm_version": slurm.version() if info["scheduler"] == "slurm" else ""}
    whole_files.write_json(target / "archive.json", meta)
    count = write_manifest(target)
    make_read_only(target)
    return rows, incomplete, checks, damaged, count


def remember(workspace, target):
    """Notes in the workspace what this archive holds, so generating again
    knows the results are safe."""
    history = archive_history(workspace)
    history.append({"archive": str(target), "created": now_utc(), "fingerprint": workspace.fingerprint()})
    whole_files.write_json(workspace.path / "archived.json", history)


def verify(path):
    """Problems of the archive at PATH: one line each; [] when it is intact."""
    path = pathlib.Path(path)
    if not path.is_dir():
        raise NbhError(f"archive --verify: {path}: no such archive directory", 2)
    manifest = path / MANIFEST
    if not manifest.is_file():
        return [f"{display_path(manifest)}: missing (not an nbhbench archive, or archiving did not finish)"], 0
    problems, listed = [], set()
    for number, line in enumerate(manifest.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
        digest, _, name = line.partition("  ")
        if len(digest) != 64 or not name or name.startswith("/") or ".." in name.split("/"):
            problems.append(f"{display_path(manifest)}:{number}: malformed line")
            continue
        listed.add(name)
        file = path / name
        if not file.is_file():
            problems.append(f"{display_path(file)}: missing (listed in {MANIFEST})")
        elif sha256(file) != digest:
            problems.append(f"{display_path(file)}: its SHA-256 and {display_path(manifest)}:{number} disagree "
                            "(the file or the manifest was changed after archiving)")
    for name in archive_files(path):
        if name != MANIFEST and name not in listed:
            problems.append(f"{display_path(path / name)}: not in {MANIFEST} (added after archiving)")
    for name in REQUIRED:
        if name not in listed and not (path / name).is_file():
            problems.append(f"{display_path(path / name)}: missing (every archive has one)")
    return problems, len(listed)
