"""The job script of one run attempt: a bash script that `submit` runs
directly (scheduler local) or hands to sbatch (scheduler slurm)."""
import os
import re
import shlex

from gen.envfile import shell_places
from gen.errors import NbhError


def expand(template, **values):
    return template.format(**values)


def launch_variables(env, param_set, extra, places):
    """The variables the ranks get, in the order they override each other:
    the environment file's launch_env, the parameter set (through param_env),
    then --set launch_env. LD_PRELOAD values are joined, not replaced."""
    variables = {}

    def put(name, value):
        if name == "LD_PRELOAD" and variables.get(name):
            value = f"{value}:{variables[name]}"
        variables[name] = value

    for name, value in env.launch_env:
        put(name, expand(value, **places))
    for name, value in param_set.items():
        put(expand(env.param_env, name=name), value)
    for name, value in extra:
        put(name, value)
    return variables


def preloads_without_spaces(variables, kernel):
    """VARIABLES with LD_PRELOAD's paths fit for ld.so, which splits the list
    at spaces and colons with no escape: a library beside the kernel (the
    MPICH yield preload, the tests' PMPI tools) is named as $ORIGIN/NAME
    where its path holds a space; any other such path is an error."""
    entries = variables.get("LD_PRELOAD", "").split(":")
    if not any(re.search(r"\s", entry) for entry in entries):
        return variables
    folder = os.path.dirname(str(kernel))
    fitting = []
    for entry in entries:
        if re.search(r"\s", entry):
            if os.path.dirname(entry) != folder:
                raise NbhError(f"LD_PRELOAD {entry}: ld.so cannot preload a path with a space (it splits "
                               "LD_PRELOAD at spaces); put the library beside the kernel or in a folder without one")
            entry = "$ORIGIN/" + os.path.basename(entry)
        fitting.append(entry)
    return dict(variables, LD_PRELOAD=":".join(fitting))


def launcher_words(env, *, nprocs, nodes, ppn, variables, places):
    """The launcher and its options handing VARIABLES to the ranks, as words
    (the program to launch follows them)."""
    words = shlex.split(expand(env.launcher, nprocs=nprocs, nodes=nodes, ppn=ppn, **places))
    if env.rank_env:
        for name, value in variables.items():
            words += shlex.split(expand(env.rank_env, name=name, value=shlex.quote(value)))
    return words


def sbatch_lines(env, run, time_limit, log, job_name):
    # --ntasks-per-node asks Slurm for the layout the deployment is; an
    # environment with more processes per node than cores says
    # ntasks_per_node = no (Slurm refuses that even with --overcommit), and
    # the launcher alone places {ppn} per node.
    options = [f"--job-name={job_name}", f"--nodes={run['nodes']}", f"--ntasks={run['nprocs']}"]
    if env.ntasks_per_node:
        options.append(f"--ntasks-per-node={run['ppn']}")
    # sbatch splits an #SBATCH line at spaces, honouring shell quotes: a log
    # path with a space (or a #) goes in quoted.
    options += [f"--time={time_limit}", shlex.quote(f"--output={log}")]
    if env.partition:
        options.append(f"--partition={env.partition}")
    if env.account:
        options.append(f"--account={env.account}")
    options += [expand(line, nprocs=run["nprocs"], nodes=run["nodes"], ppn=run["ppn"]) for line in env.sbatch]
    return [f"#SBATCH {option}" for option in options]


def job_name(campaign, run_id):
    """The Slurm job name of RUN_ID's job script (submit adds the attempt and a token)."""
    return f"nbh-{campaign}-{run_id}"


def job_script(*, env, env_name, campaign, run, attempt, param_set, launch_env, time_limit,
               kernel, input_path, prefix, log, exit_file, root, build, start_file=None):
    """The text of the job script; RUN is a row of runs.csv (dict)."""
    places = {"root": str(root), "build": str(build)}   # in values
    words = shell_places(root, build)                   # in shell words
    run_id = run["run_id"]
    variables = preloads_without_spaces(launch_variables(env, param_set, launch_env, places), kernel)
    launcher = launcher_words(env, nprocs=run["nprocs"], nodes=run["nodes"], ppn=run["ppn"],
                              variables=variables, places=words)
    rank_exports = [] if env.rank_env else [f"export {name}={shlex.quote(value)}"
                                            for name, value in variables.items()]
    # The kernel refuses to measure unless every parameter of the set is in
    # force: a typo or a launcher that drops variables would otherwise
    # silently measure the defaults. A parameter MPI_T cannot see (env_only)
    # must at least be in the processes' environment.
    expected = [f"--expect-env {shlex.quote(expand(env.param_env, name=name) + '=' + value)}"
                if env.is_env_only(name) else f"--expect-cvar {shlex.quote(f'{name}={value}')}"
                for name, value in param_set.items()]
    command = " ".join([shlex.join(launcher), '"$kernel"', "-i", shlex.quote(str(input_path)),
                        "-o", shlex.quote(str(prefix)), *expected])
    header = ["#!/usr/bin/env bash"]
    if env.scheduler == "slurm":
        header += sbatch_lines(env, run, time_limit, log, job_name(campaign, run_id))
    q = shlex.quote
    lines = header + [
        f"# nbhbench job: campaign {campaign}, run {run_id}, attempt {attempt}, environment {env_name}",
        f"# ({run['nodes']} node(s) x {run['ppn']} processes, parameter set {run['param_set']}, "
        f"time limit {time_limit}). Written by nbhbench; `nbhbench submit` runs it.",
        "set -u",
        *[expand(line, **words) for line in env.setup],
        *[f"export {name}={q(expand(value, **places))}" for name, value in env.export],
        *rank_exports,
        f"kernel={q(str(kernel))}",
        'if [ ! -x "$kernel" ]; then',
        f'    echo "nbhbench: $kernel is not built (run: nbhbench build --env {env_name})" >&2',
        f"    echo 127 > {q(str(exit_file))}",
        "    exit 127",
        "fi",
        f'echo "nbhbench: run {run_id} attempt {attempt} starts on $(hostname) at $(date -u +%Y-%m-%dT%H:%M:%SZ)"',
        # When the launch really started (seconds since 1970, to the ns):
        # the archive's launch_order, whatever order the scheduler chose.
        *([f"date +%s.%N > {q(str(start_file))}"] if start_file else []),
        f"echo {q('+ ' + command)}",
        command,
        "status=$?",
        f'echo "$status" > {q(str(exit_file))}',
        f'echo "nbhbench: run {run_id} attempt {attempt} ends with exit code $status at $(date -u +%Y-%m-%dT%H:%M:%SZ)"',
        'exit "$status"',
        "",
    ]
    return "\n".join(lines)


def attempt_job_script(workspace, info, env, run, attempt):
    """The job script of attempt ATTEMPT of RUN, with paths inside WORKSPACE."""
    run_id = run["run_id"]
    settings = info["settings"]
    return job_script(env=env, env_name=info["env"], campaign=info["campaign"], run=run,
                      attempt=attempt, param_set=settings["param_sets"][run["param_set"]],
                      launch_env=info["launch_env"], time_limit=settings["time_limit"],
                      kernel=info["kernel"], input_path=workspace.input(run_id, attempt),
                      prefix=workspace.prefix(run_id, attempt), log=workspace.log(run_id, attempt),
                      exit_file=workspace.exit_file(run_id, attempt), root=info["root"],
                      build=info["build"], start_file=workspace.start_file(run_id, attempt))
