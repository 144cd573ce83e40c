"""Where a campaign's generated files, results and logs live, and `generate`.

    work/<campaign>/              ($NBH_WORK/<campaign>/ when NBH_WORK is set)
      campaign.json               what was generated: campaign, env, resolved settings, --set, git commit
      experiments.csv             the experiment table (docs/archive.md)
      param_sets.csv, runs.csv    the library parameter sets; the planned runs with their seeds
      campaign/, env/NAME         copies of the campaign definition and the environment file
      inputs/RUN.csv              each run's input; inputs/RUN.aN.csv: what attempt N (resume) reran
      jobs/RUN.aN.sh              the job script of attempt N
      results/RUN.aN.*            the kernel's files of attempt N
      logs/RUN.aN.log             what attempt N printed
      attempts/RUN.aN.json, .exit when and how attempt N was submitted, its exit code and final state
      attempts/RUN.aN.start       when attempt N's job started its launch (seconds since 1970, the job script writes it)
      archived.json               the archives made from this workspace
"""
import datetime
import os
import pathlib
import re
import subprocess

from gen import records, whole_files
from gen.closest_name import closest
from gen.errors import FileError, NbhError, display_path
from gen.registry import ROOT

CAMPAIGNS = ROOT / "campaigns"
CAMPAIGN_FILES = ("campaign.conf", "experiments.py")
NAME = re.compile(r"[A-Za-z0-9_.+-]+$")
EXIT_CONFLICT = 3
# What campaign.json and runs.csv must hold (docs/workflow.md).
INFO_FIELDS = {"campaign": str, "campaign_source": str, "env": str, "library": str, "scheduler": str,
               "kernel": str, "settings": dict, "git_commit": str, "generated": str, "set": list,
               "launch_env": list}
SETTINGS_FIELDS = {"nrep": int, "time_limit": str, "param_sets": dict}
RUN_COLUMNS = ("run_id", "deployment", "nodes", "ppn", "nprocs", "run", "param_set", "seed",
               "experiments_total")
RUN_INTEGERS = ("nodes", "ppn", "nprocs", "run", "seed", "experiments_total")


def work_root():
    return pathlib.Path(os.environ.get("NBH_WORK") or ROOT / "work").absolute()


def build_root():
    return pathlib.Path(os.environ.get("NBH_BUILD") or ROOT / "build").absolute()


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def campaign_source(argument):
    """The campaign directory ARGUMENT names: a name under campaigns/ or a path."""
    named = CAMPAIGNS / argument
    if os.sep not in argument and argument not in (".", "..") and named.is_dir():
        path = named
    elif os.path.isdir(argument):
        path = pathlib.Path(argument)
    else:
        known = sorted(p.name for p in CAMPAIGNS.iterdir() if p.is_dir()) if CAMPAIGNS.is_dir() else []
        guess = closest(argument, known)
        raise NbhError(f"unknown campaign '{argument}' ({f'did you mean {guess}? ' if guess else ''}"
                       f"campaigns/ has: {', '.join(known)}; or give the path of a campaign directory)")
    path = path.resolve()
    missing = [f for f in CAMPAIGN_FILES if not (path / f).is_file()]
    if missing:
        raise NbhError(f"{display_path(path)} is not a campaign directory: no {missing[0]}")
    if not NAME.match(path.name):
        raise NbhError(f"campaign name '{path.name}' may hold only letters, digits and . _ + -")
    return path


class Workspace:
    def __init__(self, path):
        self.path = pathlib.Path(path)

    inputs = property(lambda self: self.path / "inputs")
    jobs = property(lambda self: self.path / "jobs")
    results = property(lambda self: self.path / "results")
    logs = property(lambda self: self.path / "logs")
    attempts = property(lambda self: self.path / "attempts")
    campaign = property(lambda self: self.path / "campaign")
    env = property(lambda self: self.path / "env")

    @property
    def name(self):
        return self.path.name

    @property
    def info_file(self):
        return self.path / "campaign.json"

    def info(self):
        info = records.read_object(self.info_file, "campaign record", INFO_FIELDS)
        return records.check_fields(self.info_file, "campaign record", info["settings"], SETTINGS_FIELDS) and info

    def runs(self):
        return records.read_table(self.path / "runs.csv", "run table", RUN_COLUMNS, RUN_INTEGERS)

    def experiments(self):
        return records.read_table(self.path / "experiments.csv", "experiment table", ("id", "nrep"),
                                  ("id", "nrep"))

    def input(self, run_id, attempt):
        return self.inputs / (f"{run_id}.csv" if attempt == 1 else f"{run_id}.a{attempt}.csv")

    def job(self, run_id, attempt):
        return self.jobs / f"{run_id}.a{attempt}.sh"

    def prefix(self, run_id, attempt):
        return self.results / f"{run_id}.a{attempt}"

    def log(self, run_id, attempt):
        return self.logs / f"{run_id}.a{attempt}.log"

    def record(self, run_id, attempt):
        return self.attempts / f"{run_id}.a{attempt}.json"

    def exit_file(self, run_id, attempt):
        return self.attempts / f"{run_id}.a{attempt}.exit"

    def start_file(self, run_id, attempt):
        return self.attempts / f"{run_id}.a{attempt}.start"

    def attempt_numbers(self, run_id):
        numbers = []
        for path in self.attempts.glob(f"{run_id}.a*.json"):
            match = re.fullmatch(re.escape(run_id) + r"\.a(\d+)\.json", path.name)
            if match:
                numbers.append(int(match.group(1)))
        return sorted(numbers)

    def fingerprint(self):
        """What the results, logs and attempt records are now: a change means
        something new that no archive holds yet."""
        files = []
        for folder in (self.results, self.logs, self.attempts):
            if folder.is_dir():
                for path in sorted(folder.iterdir()):
                    if path.is_file():
                        files.append([f"{folder.name}/{path.name}", path.stat().st_size])
        return files


def write_csv(path, columns, rows):
    whole_files.write_csv(path, columns, rows)


def find_workspace(argument):
    """The workspace of the campaign ARGUMENT names (name or path), generated before."""
    name = pathlib.Path(argument.rstrip(os.sep) or argument).name
    workspace = Workspace(work_root() / name)
    if not workspace.info_file.is_file():
        generated = sorted(p.parent.name for p in work_root().glob("*/campaign.json"))
        guess = closest(name, generated)
        if guess:
            raise NbhError(f"campaign {name} has not been generated (did you mean {guess}? generated: "
                           f"{', '.join(generated)})")
        raise NbhError(f"campaign {name} has not been generated yet (no {display_path(workspace.path)}; "
                       f"run: nbhbench generate {argument} --env ENV)")
    if os.sep in argument or os.path.isdir(argument) and not (CAMPAIGNS / argument).is_dir():
        given = pathlib.Path(argument).resolve()
        source = pathlib.Path(workspace.info()["campaign_source"])
        if given not in (source, workspace.path.resolve()):
            raise NbhError(f"{display_path(workspace.path)} holds campaign {display_path(source)}, "
                           f"not {display_path(given)} (campaign names must differ)")
    return workspace


def unarchived(workspace):
    """Whether WORKSPACE holds results or attempts that no archive has taken."""
    if not workspace.attempts.is_dir() or not any(workspace.attempts.glob("*.json")):
        return False
    history = archive_history(workspace)
    return not (history and history[-1]["fingerprint"] == workspace.fingerprint())


def archive_history(workspace):
    """archived.json: [{archive, created, fingerprint}], oldest first ([] before the first archive)."""
    path = workspace.path / "archived.json"
    if not path.is_file():
        return []
    history = records.read_json(path, "archive history")
    if not isinstance(history, list):
        raise records.RecordError(path, "archive history", "a JSON list expected")
    for entry in history:
        records.check_fields(path, "archive history", entry, {"archive": str, "fingerprint": list})
    return history


def git_state():
    """The project's commit, with '-dirty' when the working tree has changes."""
    def git(*args):
        return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True,
                              timeout=30).stdout.strip()
    try:
        commit = git("rev-parse", "HEAD")
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return (commit or "unknown") + ("-dirty" if commit and dirty else "")


def replace_directory(target, staged):
    """Moves STAGED to TARGET, removing what was at TARGET."""
    old = target.with_name(f".{target.name}.old-{os.getpid()}")
    try:
        if target.exists():
            target.rename(old)
        staged.rename(target)
    except OSError as e:
        raise FileError(target, e) from None
    if old.exists():
        whole_files.remove_tree(old)


def never_replaceable(workspace):
    return None


def stage_workspace(name, failed_runs=never_replaceable):
    """A fresh staging directory next to work/NAME, or an error if NAME's
    workspace holds results no archive has taken. Returns the target, the
    staging directory and a note on what the target held, if anything.

    FAILED_RUNS(workspace) is how many runs such a workspace has if every
    one of them failed without finishing an experiment (it is then
    replaced), else None. How runs went is the workflow's to tell
    (workflow.attempts.all_failed: the workflow builds on gen, never the
    other way), so without it a workspace with unarchived results is kept."""
    target = work_root() / name
    note = ""
    if target.exists():
        if not (target / "campaign.json").is_file() and any(target.iterdir()):
            raise NbhError(f"{display_path(target)} exists and is not an nbhbench workspace; "
                           "move it away first", EXIT_CONFLICT)
        if (target / "campaign.json").is_file() and unarchived(Workspace(target)):
            failed = failed_runs(Workspace(target))
            if failed is None:
                raise NbhError(f"{display_path(target)} holds results that are not archived, or runs still "
                               f"pending or running; archive them (nbhbench archive {name}) or move "
                               f"{display_path(target)} away, then generate again", EXIT_CONFLICT)
            note = (f"replaced {display_path(target)}: its {failed} submitted run{'s' if failed != 1 else ''} "
                    "had all failed without finishing an experiment (their logs went with it)")
    remove_stale_stages(target)
    staged = target.with_name(f".{name}.new-{os.getpid()}")
    if staged.exists():
        whole_files.remove_tree(staged)
    for folder in ("inputs", "jobs", "results", "logs", "attempts", "env"):
        whole_files.make_directory(staged / folder)
    return target, staged, note


def remove_stale_stages(target):
    """Removes .NAME.new-PID and .NAME.old-PID directories whose generate was
    killed (PID gone): never a workspace, only ever half of one."""
    if not target.parent.is_dir():
        return
    for path in target.parent.glob(f".{target.name}.*-*"):
        kind, _, pid = path.name[len(target.name) + 2:].partition("-")
        if kind in ("new", "old") and pid.isdigit() and not pid_alive(int(pid)):
            whole_files.remove_tree(path)


def pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
