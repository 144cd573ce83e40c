"""A campaign's experiments.py -> the validated experiment table.

Every experiment is completed as the kernel will run it (docs/kernel.md:
applicable parameters explicit, the others empty) and gets its id: its
position in the full design, counted from 1, so an experiment keeps its id
when --set keeps only some levels.
"""
import runpy
import traceback

from gen import registry, rules
from gen.design import LINE, Design, DesignError
from gen.errors import ConfigError, NbhError, display_path
from gen.isolated_call import call_isolated


def error_line(error, path):
    """The line of PATH where ERROR happened (the innermost frame in PATH)."""
    if isinstance(error, SyntaxError) and error.filename and str(error.filename) == str(path):
        return error.lineno or 0
    lines = [frame.lineno for frame in traceback.extract_tb(error.__traceback__)
             if frame.filename == str(path)]
    return lines[-1] if lines else 0


def define_experiments(path):
    """The records of the EXPERIMENTS design defined by the campaign file PATH
    (runs in the child process of call_isolated)."""
    path = str(path)
    try:
        namespace = runpy.run_path(path, run_name="campaign_experiments")
        design = namespace.get("EXPERIMENTS")
        if not isinstance(design, Design):
            raise ConfigError(path, 0, "defines no EXPERIMENTS design "
                              "(EXPERIMENTS = cross(levels(...), ...), see docs/campaigns.md)")
        return design.records()
    except SyntaxError as e:
        raise ConfigError(path, error_line(e, path), f"syntax error: {e.msg}") from None
    except DesignError as e:
        raise ConfigError(path, error_line(e, path), str(e)) from None
    except NbhError:
        raise
    except SystemExit as e:
        raise ConfigError(path, error_line(e, path), "exited while defining the experiments "
                          f"(sys.exit({'' if e.code is None else repr(e.code)}))") from None
    except BaseException as e:  # the campaign file is user code: report, never a traceback
        raise ConfigError(path, error_line(e, path), f"{type(e).__name__}: {e}") from None


def load_design(path, time_limit=None, limit_source=""):
    """The experiment records (dicts, with PARAMETER@line entries) of the
    campaign file PATH, evaluated in a child process within TIME_LIMIT
    seconds (registry/limits.csv experiments_time_limit by default):
    experiments.py is user code that may exit or never end."""
    reg = registry.load()
    if time_limit is None:
        time_limit = reg.bounds["experiments_time_limit"].default
    hint = (f"experiments_time_limit = {time_limit} s{f' from {limit_source}' if limit_source else ''}; "
            "raise it in campaign.conf or with --set experiments_time_limit=MM:SS")
    return call_isolated(lambda: define_experiments(path), time_limit, display_path(path),
                         "exited while defining the experiments", hint)


def describe(row):
    """op=... topology=... for the parameters an experiment has."""
    return " ".join(f"{k}={v}" for k, v in row.items()
                    if not k.endswith(LINE) and k != "id" and not rules.is_empty(v))


def complete_all(records, path):
    """The design's experiments (load_design's records), completed and
    numbered; raises ConfigError at the line that gave a wrong value."""
    reg = registry.load()
    problem = reg.check_bound("experiments", len(records), "the design's number of experiments,")
    if problem:
        raise ConfigError(path, 0, problem)
    rows, first_line = [], {}
    for record in records:
        try:
            row = rules.complete(reg, record)
        except rules.RowError as e:
            line = record.get(e.parameter + LINE) or record.get("op" + LINE) or 0
            raise ConfigError(path, line, f"{e} (experiment: {describe(record)})" if e.about_row else str(e)) \
                from None
        key = tuple(row.values())
        line = record.get("op" + LINE) or 0
        if key in first_line:
            raise ConfigError(path, line, f"experiment {describe(row)} appears twice "
                              f"(also from line {first_line[key]}; union parts must not overlap)")
        first_line[key] = line
        rows.append(dict(id=len(rows) + 1, **row))
    if not rows:
        raise ConfigError(path, 0, "the design has no experiments")
    return rows


def select_levels(rows, levels):
    """The experiments whose parameters are among LEVELS (parameter -> values);
    experiments a parameter does not apply to are kept."""
    for parameter, values in levels.items():
        present = {row[parameter] for row in rows if row[parameter] is not None}
        absent = [v for v in values if v not in present]
        if absent:
            ordered = sorted(present, key=lambda v: (isinstance(v, str), v))
            shown = ", ".join(str(v) for v in ordered) or "none: it never applies"
            raise NbhError(f"--set {parameter}: the campaign has no experiment with "
                           f"{parameter}={absent[0]} (its levels: {shown})")
        rows = [row for row in rows if row[parameter] is None or row[parameter] in values]
    if not rows:
        raise NbhError("--set: no experiment is left")
    return rows


def check_deployments(rows, deployments, where):
    """Raises NbhError if the kernel would refuse an experiment on a deployment."""
    reg = registry.load()
    for nodes, ppn in deployments:
        nprocs = nodes * ppn
        for row in rows:
            problem = rules.deployment_problem(reg, row, nprocs)
            if problem:
                raise NbhError(f"{where}: deployment {nodes}x{ppn} is impossible for experiment "
                               f"{row['id']} ({describe(row)}): {problem}")


def with_run_settings(rows, settings):
    """Every experiment with what the campaign's settings give all of them:
    nrep, the interleaved rounds (blocks) and the warm-up repetitions."""
    return [dict(row, nrep=settings.nrep, blocks=settings.rounds(), first_round=1, warmup=settings.warmup)
            for row in rows]
