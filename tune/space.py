"""The search space of `nbhbench tune`: the candidate parameter sets for the
operations behind a guideline, from the library's own control variables
(MPI_T, as build/LIBRARY/nbh-cvars lists them) and registry/tuning.csv,
the shipped list of what matters per operation (docs/tuning.md).

A candidate is one parameter set: the default (nothing set), or one value
of one listed parameter with what it requires (coll tuned reads a forced
algorithm only with coll_tuned_use_dynamic_rules). The values of a
parameter whose registry row says `mpi_t` are the choices MPI_T gives
(Open MPI's MCA enumerators; MPICH lists its algorithm CVARs' choices in
their descriptions), less those the row leaves out; the others are the
row's own values, each checked against what MPI_T shows.
"""
import csv
import dataclasses
import io
import re
import shlex
import subprocess

from gen import registry
from gen.closest_name import closest
from gen.errors import NbhError
from gen.jobscript import launch_variables, launcher_words
from gen.envfile import shell_places

EXIT_UNKNOWN_PARAMETER = 2


@dataclasses.dataclass
class Row:
    """A row of registry/tuning.csv."""
    library: str
    op: str
    parameter: str
    kind: str
    values: list
    requires: dict
    leave_out: dict       # value: why it is never raced
    note: str


@dataclasses.dataclass
class Candidate:
    name: str
    parameters: dict          # what the set holds (the default: nothing)
    source: str               # default, MPI_T, registry/tuning.csv, --param
    parameter: str = ""       # the parameter it varies
    value: str = ""


def rows(library):
    """The rows of registry/tuning.csv for LIBRARY (openmpi5 and
    mpich-4.2.3 read openmpi's and mpich's)."""
    found = []
    for row in registry.read_table("tuning"):
        if library == row["library"] or re.fullmatch(re.escape(row["library"]) + r"[-0-9.]*", library):
            found.append(Row(row["library"], row["op"], row["parameter"], row["kind"], row["values"].split(),
                             dict(item.split("=", 1) for item in row["requires"].split()),
                             dict(item.strip().split("=", 1) for item in row["leave_out"].split(";") if item.strip()),
                             row["note"]))
    return found


def read_cvars(text):
    """{name: {value, choices, description}} of nbh-cvars' CSV output."""
    return {row["name"]: row for row in csv.DictReader(io.StringIO(text))}


def list_cvars(env, info):
    """Runs build/LIBRARY/nbh-cvars as one process under ENV's launcher
    (its setup and exports, as a job script has them); returns read_cvars."""
    tool = info["build"] + f"/{env.library}/nbh-cvars"
    places = {"root": info["root"], "build": info["build"]}
    words = shell_places(info["root"], info["build"])
    variables = launch_variables(env, {}, [], places)
    launcher = launcher_words(env, nprocs=1, nodes=1, ppn=1, variables=variables, places=words)
    script = "\n".join([*[line.format(**words) for line in env.setup],
                        *[f"export {name}={shlex.quote(value.format(**places))}" for name, value in env.export],
                        *([] if env.rank_env else [f"export {k}={shlex.quote(v)}" for k, v in variables.items()]),
                        " ".join(shlex.quote(w) for w in launcher + [tool])])
    try:
        result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120,
                                stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise NbhError(f"tune: {tool} did not answer within 120 s (the library's control variables)", 1) from None
    if result.returncode != 0 or not result.stdout.startswith("name,"):
        said = (result.stderr or result.stdout).strip().splitlines()
        raise NbhError(f"tune: cannot list {env.library}'s control variables ({tool}: "
                       f"{said[-1] if said else f'exit code {result.returncode}'}; run: make)", 1)
    return read_cvars(result.stdout)


def choices(cvar):
    """The names of a control variable's choices as MPI_T shows them: the
    enumerator's items (Open MPI), else the "name - description" list of
    an MPICH algorithm CVAR's description; [] for a plain number or text."""
    if cvar["choices"]:
        return [item.split(":", 1)[1] for item in cvar["choices"].split(";") if ":" in item]
    # MPICH joins its lines without a separator: "... select alltoall
    # algorithmauto - Internal ... FILE)brucks - Force brucks algorithmnb - ..."
    names = [re.sub(r"^algorithm(?=.)", "", name) for name in re.findall(r"([a-z][a-z0-9_]*)\s+- ", cvar["description"])]
    return list(dict.fromkeys(names))


def known(name, cvars, env):
    """Whether the library knows parameter NAME: MPI_T lists it, or the
    environment declares it beyond MPI_T (env_only, Intel MPI's I_MPI_ADJUST_*)."""
    return name in cvars or env.is_env_only(name)


def unknown_line(name, cvars, env, where):
    near = closest(name, list(cvars))
    return (f"tune: {where}: library parameter {name} is not known to {env.library} (MPI_T lists "
            f"{len(cvars)} control variables{f'; the closest: {near}' if near else ''})")


def candidate_name(op, row_or_parameter, value):
    stem = row_or_parameter.parameter if isinstance(row_or_parameter, Row) else row_or_parameter
    short = re.sub(r"^(coll_tuned_|MPIR_CVAR_|I_MPI_ADJUST_)", "", stem).lower()
    short = re.sub(r"_(intra_)?algorithm$", "", short)
    return re.sub(r"[^A-Za-z0-9_.]", "_", f"{short}_{value}")


def space(library, ops, cvars, env, params=()):
    """The candidates for OPS under LIBRARY: the default, then each value of
    each listed parameter, then --param's (PARAMS: [(name, [values])]);
    returns (candidates, left out: [(parameter, value or "", why)]).
    A --param the library does not know is an NbhError (one line)."""
    found = [Candidate("default", {}, "default")]
    left = []
    for row in rows(library):
        if row.op not in ops:
            continue
        if not known(row.parameter, cvars, env):
            left.append((row.parameter, "", f"{env.library} has no such parameter (MPI_T)"))
            continue
        if row.values == ["mpi_t"]:
            values, source = choices(cvars[row.parameter]), "MPI_T"
        else:
            values, source = row.values, "registry/tuning.csv"
        if row.values != ["mpi_t"] and row.parameter in cvars and choices(cvars[row.parameter]):
            offered = choices(cvars[row.parameter])
            for value in [v for v in values if v not in offered and not v.isdigit()]:
                left.append((row.parameter, value, f"not among its choices in MPI_T ({', '.join(offered)})"))
            values = [v for v in values if v in offered or v.isdigit()]
        for value in values:
            if value in row.leave_out:
                left.append((row.parameter, value, f"{row.leave_out[value]} (registry/tuning.csv)"))
                continue
            found.append(Candidate(candidate_name(row.op, row, value), dict(row.requires, **{row.parameter: value}),
                                   source, row.parameter, value))
    for name, values in params:
        if not known(name, cvars, env):
            raise NbhError(unknown_line(name, cvars, env, f"--param {name}"), EXIT_UNKNOWN_PARAMETER)
        offered = choices(cvars[name]) if name in cvars else []
        for value in values:
            if offered and value not in offered and not value.isdigit():
                raise NbhError(f"tune: --param {name}={value}: {value} is not one of its choices in MPI_T "
                               f"({', '.join(offered)})", EXIT_UNKNOWN_PARAMETER)
            requires = next((r.requires for r in rows(library) if r.parameter == name), {})
            found.append(Candidate(candidate_name("", name, value), dict(requires, **{name: value}), "--param",
                                   name, value))
    unique, seen = [], set()
    for candidate in found:
        key = tuple(sorted(candidate.parameters.items()))
        if key not in seen:
            seen.add(key)
            unique.append(candidate)
    return unique, left

