"""Adaptive campaigns (SPEC 7.5): `nbhbench submit` runs a round, looks at
what has finished, and writes the next round of only the experiments that
undecided tests need (gen/rounds.py), until no test is open or the budget
of nrun_max runs per deployment and parameter set is spent.

The look is the analyzer's (analyze/adaptive_look.R): it assesses the
campaign's assessment.conf, each test with the thresholds of its look
(the p threshold and the interval's error spent on the runs it has,
analyze/assess/decisions.R) on a view of the workspace laid out as an
archive: the done runs, their attempts' results merged as `archive` merges
them (workflow/archive.py results_of), in a folder removed afterwards. Its
outputs stay in looks/ROUND/ (tests.csv with each test's decision,
needed.csv, look.json); adaptive.json records the plan and every look.

State lives in the workspace only (runs.csv rounds, adaptive.json), so a
submit that stops anywhere (Ctrl-C, a failed run, Slurm without --wait)
goes on where it stopped when called again.
"""
import contextlib
import os
import subprocess

from gen import records, rounds, whole_files
from gen.errors import FileError, NbhError, display_path
from gen.registry import ROOT
from gen.workspace import now_utc, write_csv
from workflow import archive, result_rows

LOOKS = "looks"
LOOK_EXIT_FAILED = 1
LOOK_EXIT_OUTPUT = 4  # analyze/adaptive_look.R: a file it could not write whole
# What adaptive.json must hold to be read (gen/rounds.py plan()).
RECORD_FIELDS = {"rule": str, "looks_planned": int, "nrun": int, "nrun_step": int, "nrun_max": int,
                 "looks": list, "state": str}
VIEW_RUN_COLUMNS = ["run_id", "deployment", "nodes", "ppn", "nprocs", "run", "param_set", "library", "state",
                    "round", "experiments_total"]


def record_path(workspace):
    return workspace.path / rounds.RECORD


def read_record(workspace):
    """adaptive.json, checked; None for a campaign that is not adaptive."""
    path = record_path(workspace)
    if not path.is_file():
        return None
    return records.read_object(path, "adaptive record", RECORD_FIELDS)


def write_record(workspace, record):
    whole_files.write_json(record_path(workspace), record)


def round_of(run):
    return int(run.get("round") or 1)


def start(workspace, info, asked):
    """The adaptive record of WORKSPACE, made now when --adaptive (ASKED)
    turns a campaign generated without rounds into one; None for a fixed
    campaign. Before the first look the assessment is checked against the
    campaign: one that names no test of it stops here, nothing submitted."""
    record = read_record(workspace)
    if record is None and not asked:
        return None
    if not (workspace.campaign / "assessment.conf").is_file():
        raise NbhError(f"--adaptive needs the campaign's assessment, but {display_path(workspace.campaign)} has no "
                       "assessment.conf: the rounds run until every test it names is decided (docs/assessment.md)")
    if record is None:
        record = rounds.plan(info["settings"])
    if "tests_planned" not in record:
        with view_folder(workspace) as view:
            make_view(workspace, info, [], view, dry=True)
            look = run_look(workspace, view, dry=True)
        record["tests_planned"] = look["tests"]
        write_record(workspace, record)
    return record


@contextlib.contextmanager
def view_folder(workspace):
    """A scratch folder in the workspace for the view, removed afterwards."""
    folder = workspace.path / f".look-{os.getpid()}"
    if folder.exists():
        whole_files.remove_tree(folder)
    whole_files.make_directory(folder)
    try:
        yield folder
    finally:
        whole_files.remove_tree(folder)


def make_view(workspace, info, statuses, folder, dry=False):
    """FOLDER becomes the workspace as an archive of the done runs in
    STATUSES (dry: of every planned run, without results), as
    analyze/input/read_archive.R reads one."""
    for name in ("experiments.csv", "param_sets.csv"):
        whole_files.copy_file(workspace.path / name, folder / name)
    if record_path(workspace).is_file():  # not yet before the first look of a campaign made adaptive by --adaptive
        whole_files.copy_file(record_path(workspace), folder / rounds.RECORD)
    whole_files.copy_tree(workspace.campaign, folder / "campaign")
    whole_files.make_directory(folder / "env")
    whole_files.copy_file(workspace.env / info["env"], folder / "env" / info["env"])
    whole_files.make_directory(folder / "results")
    expected = result_rows.Expected.of(workspace.experiments())
    if dry:
        rows = [dict(run, library=info["library"], state="pending") for run in workspace.runs()]
    else:
        rows = []
        for status in statuses:
            archive.results_of(status, folder / "results", expected)
            rows.append(dict(status.run, library=info["library"], state=status.state))
    write_csv(folder / "runs.csv", VIEW_RUN_COLUMNS, [dict(row, round=round_of(row)) for row in rows])
    checks = [] if dry else archive.param_set_check(info, statuses, folder)
    whole_files.write_json(folder / "archive.json", {
        "format": 1, "campaign": workspace.name, "env": info["env"], "library": info["library"],
        "scheduler": info["scheduler"], "settings": info["settings"], "param_set_check": checks,
        "note": "a view of the workspace for one look of an adaptive campaign (workflow/adaptive.py)"})


def run_look(workspace, view, dry=False, out=None):
    """Runs analyze/adaptive_look.R on VIEW; returns look.json. A mistake
    in the assessment is one line (exit 2), as in analyze."""
    out = out or view / "look"
    whole_files.make_directory(out, exist_ok=True)
    command = ["Rscript", "--vanilla", str(ROOT / "analyze" / "adaptive_look.R"), f"--out={out}",
               *(["--dry"] if dry else []), "--", str(view)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, NBH_ROOT=str(ROOT)))
    except FileNotFoundError:
        raise NbhError("Rscript not found: an adaptive campaign looks with the analyzer (run: make deps)",
                       LOOK_EXIT_FAILED) from None
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    said = lines[-1].removeprefix("nbhbench: ") if lines else f"exit code {done.returncode}"
    if done.returncode == 2:
        raise NbhError(f"{workspace.name}: campaign/assessment.conf: {said}" if dry else said)
    if done.returncode == LOOK_EXIT_OUTPUT:  # a file of the look not written whole (a full disk)
        raise NbhError(f"{workspace.name}: the look could not write its files: {said}; free space, then: "
                       f"nbhbench submit {workspace.name}", FileError.code)
    if done.returncode != 0:
        raise NbhError(f"{workspace.name}: the look failed: {said}", LOOK_EXIT_FAILED)
    return records.read_json(out / "look.json", "look record")


def needed(folder):
    """{(deployment, param_set): {ids}} of a look's needed.csv."""
    out = {}
    for row in records.read_table(folder / "needed.csv", "needed experiments", ("deployment", "param_set", "id"),
                                  ("id",)):
        out.setdefault((row["deployment"], row["param_set"]), set()).add(int(row["id"]))
    return out


def look(workspace, info, record, statuses, number):
    """The look after round NUMBER: its files in looks/NUMBER/, its entry in
    the record (returned)."""
    target = workspace.path / LOOKS / str(number)
    with view_folder(workspace) as view:
        make_view(workspace, info, [s for s in statuses if s.state == "done"], view)
        out = view / "look"
        found = run_look(workspace, view, out=out)
        whole_files.make_directory(target.parent, exist_ok=True)
        if target.exists():
            whole_files.remove_tree(target)
        try:
            os.rename(out, target)  # the look's files appear together
        except OSError as e:
            raise FileError(target, e) from None
    runs = workspace.runs()
    entry = {"round": number, "at": now_utc(), "runs": len(runs),
             "experiment_runs": sum(int(r["experiments_total"]) for r in runs),
             **{k: found[k] for k in ("tests", "violated", "holds", "open", "p_look", "ci_level_look")},
             "guidelines": found["guidelines"], "warnings": len(found.get("warnings", []))}
    record["looks"] = [e for e in record["looks"] if e["round"] != number] + [entry]
    return entry


def say(text):
    print(text, flush=True)


def percent(part, whole):
    return f"{100 * part / whole:.0f} %" if whole else "-"


def spent_line(workspace, record):
    """Runs and experiment runs planned so far against the fixed design of nrun_max."""
    runs = workspace.runs()
    contexts = {rounds.context_of(r) for r in runs}
    experiments = len(workspace.experiments())
    fixed = len(contexts) * record["nrun_max"]
    fixed_work = fixed * experiments
    work = sum(int(r["experiments_total"]) for r in runs)
    return (f"runs: {len(runs)} of the fixed design's {fixed} ({percent(len(runs), fixed)}), experiment runs "
            f"{work} of {fixed_work} ({percent(work, fixed_work)}); {rounds.runs_left(runs, record['nrun_max'])} "
            f"runs left in the budget (nrun_max {record['nrun_max']} per deployment and set)")


def follow(workspace, info, env, record, batch):
    """Submits round after round. BATCH() submits what is due now (the
    current round's runs, --resume's reruns) and returns the statuses, with
    every run ended when the scheduler waits (local, slurm --wait). Returns
    the exit status."""
    name = workspace.name
    while True:
        statuses = batch()
        current = max(round_of(s.run) for s in statuses)
        if any(s.attempts and s.state in ("pending", "running", "unknown") for s in statuses):
            say(f"{name}: round {current} is in Slurm; nbhbench submit {name} looks when it has ended "
                f"(--wait follows every round)")
            return 0
        undone = [s for s in statuses if s.state != "done"]
        if undone:
            say(f"{name}: round {current}: {len(undone)} runs did not finish ({undone[0].run_id}: {undone[0].state}); "
                f"nbhbench submit --resume {name} finishes them, then the rounds go on")
            return LOOK_EXIT_FAILED
        if not any(e["round"] == current for e in record["looks"]):
            entry = look(workspace, info, record, statuses, current)
            record["state"] = f"looked after round {current}"
            write_record(workspace, record)
            warned = (f"; {entry['warnings']} analyzer warnings in {display_path(workspace.path / LOOKS / str(current))}"
                      "/look.json" if entry["warnings"] else "")
            say(f"{name}: look after round {current}: {entry['tests']} tests: {entry['violated']} violated, "
                f"{entry['holds']} hold, {entry['open']} open (this look: p <= {entry['p_look']:.3g}, intervals "
                f"{100 * entry['ci_level_look']:.4g} %, for the tests with the most runs){warned}")
        entry = next(e for e in record["looks"] if e["round"] == current)
        runs = workspace.runs()
        if not entry["open"]:
            return finish(workspace, record, f"done: no test open after round {current}")
        if current >= record["looks_planned"]:
            return finish(workspace, record, f"budget spent: {entry['open']} tests open after round {current}, "
                                             f"the last of {record['looks_planned']} planned looks")
        new = rounds.round_runs(runs, needed(workspace.path / LOOKS / str(current)), record["nrun_step"],
                                record["nrun_max"], int(info["settings"]["seed"]), current + 1)
        if not new:
            return finish(workspace, record, f"budget spent: {entry['open']} tests open after round {current}")
        order = [int(row["id"]) for row in workspace.experiments()]
        rounds.write_round(workspace, info, env, new, order)
        record["state"] = f"round {current + 1}"
        write_record(workspace, record)
        say(f"{name}: round {current + 1}: {len(new)} runs of {len(new[0]['ids'])}"
            f"{'' if len({len(r['ids']) for r in new}) == 1 else '+'} experiments for the {entry['open']} open tests; "
            f"{spent_line(workspace, record)}")


def finish(workspace, record, state):
    record["state"] = state
    write_record(workspace, record)
    say(f"{workspace.name}: {state}; {spent_line(workspace, record)}")
    return 0


def status_lines(workspace):
    """What `nbhbench status` adds for an adaptive campaign: the round, the
    runs spent and left, what the last look found, and per guideline (its
    tag's lines together) the tests each look had decided."""
    record = read_record(workspace)
    if record is None:
        return []
    runs = workspace.runs()
    current = max(round_of(r) for r in runs)
    state = "" if record["state"] == f"round {current}" else f" ({record['state']})"
    lines = ["", f"adaptive: round {current} of at most {record['looks_planned']}{state}; {rounds.rule_text(record)}",
             f"  {spent_line(workspace, record)}"]
    looks = sorted(record["looks"], key=lambda e: e["round"])
    if not looks:
        planned = record.get("tests_planned")
        return lines + [f"  no look yet{f'; the assessment names {planned} tests' if planned else ''}"]
    last = looks[-1]
    lines.append(f"  after round {last['round']}: {last['tests']} tests: {last['violated']} violated, "
                 f"{last['holds']} hold, {last['open']} open")
    rows = {}
    for number, entry in enumerate(looks):
        for g in entry["guidelines"]:
            label = g["tag"] or g["guideline"]
            row = rows.setdefault(label, {"tests": 0, "decided": [0] * len(looks), "open": 0})
            row["decided"][number] += g["violated"] + g["holds"]
            if entry is last:
                row["tests"] += g["tests"]
                row["open"] += g["open"]
    header = ["guideline", "tests"] + [f"decided after round {e['round']}" for e in looks] + ["open"]
    table = [header] + [[label, str(r["tests"])] + [str(d) for d in r["decided"]] + [str(r["open"])]
                        for label, r in rows.items()]
    widths = [max(len(row[i]) for row in table) for i in range(len(header))]
    return lines + ["  " + "  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip() for row in table]
