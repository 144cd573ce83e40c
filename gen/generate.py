"""`nbhbench generate`: a campaign definition -> its workspace (docs/workflow.md)."""
import os
import sys

import numpy as np

from gen import estimate, power, registry, rounds, runs as runplan, twins
from gen.availability import runnable
from gen.cli import Parser
from gen.envfile import find as find_env, install_command, known_names, read_environment
from gen import whole_files
from gen.errors import FileError, NbhError, display_path
from gen.graphs import buffers as graph_buffers
from gen.graphs.files import FOLDER as GRAPH_FOLDER, write_graphs
from gen.experiments import check_deployments, complete_all, describe, load_design, select_levels, with_run_settings
from gen.jobscript import attempt_job_script
from gen.settings import (apply_overrides, format_time_limit, parse_overrides, read_settings,
                          sets_for_library)
from gen.workspace import (ROOT, Workspace, build_root, campaign_source, git_state, never_replaceable,
                           now_utc, replace_directory, stage_workspace, write_csv)


def choose_environment(settings, env_option):
    if env_option:
        settings.env = env_option
        settings.sources["env"] = "--env"
    if not settings.env:
        raise NbhError("no environment: give --env ENV (env/ has: "
                       f"{', '.join(known_names())}) or set env in campaign.conf")
    return read_environment(settings.env)


def deployment_origin(settings):
    origin = settings.sources.get("deployments", "")
    return "--set deployments" if origin == "--set" else origin


def param_set_rows(param_sets):
    rows = []
    for name, values in param_sets.items():
        rows += [{"param_set": name, "name": k, "value": v} for k, v in values.items()] or \
            [{"param_set": name, "name": "", "value": ""}]
    return rows


def write_workspace(staged, *, source, settings, env, overrides, rows, runs, name, left_out=None):
    reg = registry.load()
    workspace = Workspace(staged)
    final = Workspace(staged.parent / name)  # job scripts name the paths the workspace will have
    columns = reg.experiment_columns
    build = build_root()
    info = {"campaign": name, "campaign_source": str(source), "env": env.name,
            "env_source": str(os.path.abspath(env.path)), "library": env.library,
            "scheduler": env.scheduler, "kernel": str(env.kernel(build)), "root": str(ROOT),
            "build": str(build), "settings": settings.as_json(), "set": overrides.given,
            "launch_env": [list(v) for v in overrides.launch_env],
            "levels": {k: list(v) for k, v in overrides.levels.items()},
            "experiments": len(rows), "runs": len(runs), "left_out": left_out or {}, "generated": now_utc(),
            "git_commit": git_state(), "numpy": np.__version__}
    write_csv(staged / "experiments.csv", columns, rows)
    write_csv(staged / "param_sets.csv", ["param_set", "name", "value"], param_set_rows(settings.param_sets))
    for run in runs:
        run["experiments_total"] = len(rows)
    write_csv(staged / "runs.csv", list(runs[0]), runs)  # in submission order (gen.runs.plan_runs)
    whole_files.copy_tree(source, staged / "campaign")
    whole_files.copy_file(env.path, staged / "env" / env.name)
    graph_files = graph_inputs(rows, runs, source, workspace.inputs / GRAPH_FOLDER, deployment_origin(settings))
    lines_of = {}
    for run in runs:
        nprocs = run["nprocs"]
        if nprocs not in lines_of:
            lines_of[nprocs] = runplan.experiment_lines(with_graph_files(rows, graph_files, nprocs), columns)
        lines = lines_of[nprocs]
        run_id = run["run_id"]
        comment = (f"nbhbench input: campaign {name}, run {run_id}, seed {run['seed']} "
                   "(experiments shuffled with numpy PCG64(seed))")
        whole_files.write_text(workspace.input(run_id, 1), runplan.input_text(columns, lines, run["seed"], comment))
        whole_files.write_text(workspace.job(run_id, 1), attempt_job_script(final, info, env, run, 1), mode=0o755)
    if settings.adaptive:
        whole_files.write_json(staged / rounds.RECORD, rounds.plan(info["settings"]))
    whole_files.write_json(staged / "campaign.json", info)


def graph_inputs(rows, runs, source, folder, where):
    """Writes the graph file of every graph spec of ROWS for every process
    count of RUNS and checks each graph experiment against its file (as
    check_deployments does for the other topologies); returns
    {(spec, nprocs): path relative to the inputs}."""
    specs = list(dict.fromkeys(row["graph"] for row in rows if row.get("graph")))
    names, _, loads = write_graphs(specs, [run["nprocs"] for run in runs], source, folder)
    reg = registry.load()
    deployments = {run["nprocs"]: run["deployment"] for run in runs}
    for nprocs, deployment in deployments.items():
        for row in rows:
            if row.get("graph"):
                file_name = names[row["graph"], nprocs]
                problem = graph_buffers.problem(reg, row, loads[row["graph"], nprocs], file_name)
                if problem:
                    raise NbhError(f"{where}: deployment {deployment} is impossible for experiment "
                                   f"{row['id']} ({describe(row)}): {problem}")
    return names


def with_graph_files(rows, graph_files, nprocs):
    """ROWS as a run on NPROCS processes reads them: a graph spec becomes its graph file."""
    if not graph_files:
        return rows
    return [dict(row, graph=graph_files[row["graph"], nprocs]) if row.get("graph") else row for row in rows]


def leave_out(settings, env, rows, sets_chosen):
    """What env cannot run, left out visibly: experiments whose operation its
    kernel lacks (gen.availability), parameter sets for another library.
    Says so on stderr; returns the record for campaign.json, with the rows
    that stay under "rows"."""
    rows, operations = runnable(rows, env, build_root())
    sets = sets_for_library(settings, env.library, sets_chosen)
    if operations:
        print(f"nbhbench: generate: environment {env.name} ({env.library}) cannot run "
              f"{', '.join(operations['operations'])}: {operations['reason']}; "
              f"left out {plural(operations['experiments'], 'experiment')}", file=sys.stderr)
    if sets:
        print(f"nbhbench: generate: parameter set{'s' if len(sets) > 1 else ''} {', '.join(sets)} "
              f"{'are' if len(sets) > 1 else 'is'} for another library than {env.library} "
              f"({', '.join(sorted({settings.param_set_library[s] for s in sets}))}); left out", file=sys.stderr)
    record = dict(operations, **({"param_sets": sets} if sets else {}))
    return dict(record, rows=rows)


def next_steps(env, argument):
    """What to run next: submit, after install-mpi and build where they are due."""
    steps = []
    if not os.access(env.kernel(build_root()), os.X_OK):
        steps = [step for step in (install_command(env), f"nbhbench build --env {env.name}") if step]
    submit = f"nbhbench submit {argument}"
    return f"{', '.join(steps)}, then {submit}" if steps else submit


def plural(count, word):
    return f"{count} {word}{'' if count == 1 else 's'}"


def generate(argument, env_option=None, set_items=(), failed_runs=never_replaceable):
    """Writes the workspace of campaign ARGUMENT; returns it and a summary.
    FAILED_RUNS: see gen.workspace.stage_workspace."""
    source = campaign_source(argument)
    overrides = parse_overrides(set_items)
    settings = apply_overrides(read_settings(source / "campaign.conf"), overrides)
    if settings.adaptive:
        rounds.check_assessment_file(source, settings.sources.get("adaptive", ""))
    env = choose_environment(settings, env_option or overrides.settings.get("env"))
    design = source / "experiments.py"
    rows = complete_all(load_design(design, settings.experiments_time_limit,
                                    settings.sources.get("experiments_time_limit", "")), design)
    rows = select_levels(rows, overrides.levels)
    left_out = leave_out(settings, env, rows, bool(overrides.param_sets))
    rows = left_out.pop("rows")
    check_deployments(rows, settings.deployments, deployment_origin(settings))
    rows = twins.with_twins(with_run_settings(rows, settings), settings.aa, settings.seed)
    runs = runplan.plan_runs(settings.deployments, settings.param_sets, settings.nrun, settings.seed,
                             interleave=runplan.interleave_id(source.name, now_utc()))
    target, staged, replaced = stage_workspace(source.name, failed_runs)
    try:
        write_workspace(staged, source=source, settings=settings, env=env, overrides=overrides,
                        rows=rows, runs=runs, name=source.name, left_out=left_out)
        replace_directory(target, staged)
    except FileError as e:
        kept = "was left as it was" if target.exists() else "was not made"
        raise e.with_note(f"nothing was written: {display_path(target)} {kept}", staged, target) from None
    finally:
        if staged.exists():
            whole_files.remove_tree(staged)
    summary = [
        f"{source.name}: {len(rows)} experiments x {len(runs)} runs ({plural(len(settings.deployments), 'deployment')} "
        f"x {plural(len(settings.param_sets), 'parameter set')} x {plural(settings.nrun, 'run')}), "
        f"nrep {settings.nrep} in {plural(settings.rounds(), 'interleaved round')}"
        + (f" after {settings.warmup} warm-up" if settings.warmup else "")
        + (f"; A/A twins of {plural(sum(r['twin'] for r in rows), 'experiment')}" if settings.aa else ""),
        *([f"  submitted interleaved: {len(runs) // len(settings.param_sets)} slots of one run of each "
           f"parameter set in a random order (sequence {runs[0]['interleave']})"] if runs[0]["interleave"] else []),
        f"  environment {env.name} ({env.library}, scheduler {env.scheduler}), "
        f"time limit {format_time_limit(settings.time_limit)} per run",
        f"  workspace {display_path(target)} (next: {next_steps(env, argument)})",
        f"  {estimate.line(len(runs), len(rows), settings.nrep, settings.rounds(), settings.warmup)}",
    ] + ([f"  {replaced}"] if replaced else []) + ([f"  {rounds.describe(rounds.plan(settings.as_json()))}"]
                                                  if settings.adaptive else [])
    return Workspace(target), summary


def check_set_words(argv):
    """`--set nrun 3` (two words) is one line that shows the one word it
    means, not argparse's "unrecognized arguments: 3"."""
    for word, key, value in zip(argv, argv[1:], argv[2:]):
        if word == "--set" and "=" not in key and not key.startswith("-") and not value.startswith("-"):
            raise NbhError(f"generate: --set {key} {value}: a setting is one word KEY=VALUE: --set {key}={value}")


def command(argv, failed_runs=never_replaceable):
    """`nbhbench generate` (python -m workflow generate, which gives FAILED_RUNS)."""
    parser = Parser("generate")
    parser.add_argument("campaign")
    parser.add_argument("--env")
    parser.add_argument("--set", action="append", default=[], dest="set_items", metavar="KEY=VALUE")
    check_set_words(argv)
    args = parser.parse_args(argv)
    if args.env is not None:
        find_env(args.env)
    workspace, summary = generate(args.campaign, args.env, args.set_items, failed_runs)
    print("\n".join(summary))
    settings = workspace.info()["settings"]
    first = rounds.plan(settings)["p_first"] if settings.get("adaptive") else None
    weak = power.paired_warning(int(settings["nrun"]), int(settings["blocks"]), first=first)
    if weak:
        print(f"nbhbench: warning: {weak}", file=sys.stderr)
    crowded = oversubscription_warning(workspace.info()["scheduler"], settings["deployments"])
    if crowded:
        print(f"nbhbench: warning: {crowded}", file=sys.stderr)
    return 0


# More processes per core than this (the demo's 1x4 on 2 cores has 2) is said.
PROCESSES_PER_CORE = 2


def oversubscription_warning(scheduler, deployments, cores=None):
    """For a local campaign, the deployment that puts the most processes on
    this machine's cores, where that is more than PROCESSES_PER_CORE a core:
    each waiting process then takes a core from one that measures. Slurm
    nodes' cores are not known here (archive marks such runs)."""
    if scheduler != "local" or not deployments:
        return ""
    cores = cores or len(os.sched_getaffinity(0))
    shapes = [tuple(int(n) for n in d.split("x")) if isinstance(d, str) else tuple(d) for d in deployments]
    nodes, ppn = max(shapes, key=lambda d: d[0] * d[1])
    factor = nodes * ppn / cores
    if factor <= PROCESSES_PER_CORE:
        return ""
    return (f"deployment {nodes}x{ppn} runs {nodes * ppn} processes on this machine's {cores} cores "
            f"({factor:g} per core): oversubscribed runs wait for the scheduler, and their times measure it as "
            "much as the library (archive marks them oversubscribed; docs/environments.md)")
