"""A campaign's settings (campaigns/NAME/campaign.conf) and --set overrides.

    description = what the campaign measures           (optional)
    deployments = 10x16, 20x16, 35x16                   nodes x processes per node
    nrun = 30                                           kernel launches per deployment and parameter set
    nrep = 50                                           repetitions of every experiment
    time_limit = 2:00:00                                per run: Slurm's --time, also enforced locally
    experiments_time_limit = 2:00                       the most experiments.py may take (default 120 s)
    seed = 20170901                                     campaign seed (run seeds derive from it; default 1)
    env = slurm-openmpi                                 default environment (optional)
    adaptive = yes                                      run rounds until every test is decided (optional)
    nrun_max = 30                                       adaptive: the most runs per deployment and set
    nrun_step = 5                                       adaptive: runs added per round (default: nrun)
    hold_ratio = 1.05                                   a test holds below it (default: the ratio threshold)
    blocks = 10                                         interleaved rounds per run (default: nrep/4, at most 10)
    warmup = 1                                          warm-up repetitions before each round's (default 1)
    aa = yes                                            A/A self-check: a twin of every experiment (or a share: 0.25)

    [param_set intermediate256]                         a library parameter set (optional, repeatable)
    coll_tuned_use_dynamic_rules = true
    coll_tuned_alltoall_intermediate_msg = 256

    [param_set async_progress]
    library = mpich                                     only for environments of this library
    MPIR_CVAR_ASYNC_PROGRESS = 1
"""
import dataclasses
import re

from gen import closest_name, registry, rules
from gen.conffile import Entry, read_entries
from gen.errors import ConfigError, NbhError, display_path

NAME = re.compile(r"[A-Za-z0-9_.]+$")
PARAMETER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
REQUIRED = ("deployments", "nrun", "nrep", "time_limit")


class ValueProblem(ValueError):
    """A setting's value is wrong; the caller says where."""


def parse_deployments(text):
    """'10x16, 20x16' -> [(10, 16), (20, 16)]: nodes x processes per node,
    each within the bounds of registry/limits.csv (nodes, ppn, nprocs)."""
    reg = registry.load()
    deployments = []
    for item in text.split(","):
        item = item.strip()
        match = re.fullmatch(r"(\d+)\s*[xX]\s*(\d+)", item)
        if not match:
            raise ValueProblem(f"'{item}' is not a deployment NODESxPPN (e.g. 10x16)")
        nodes, ppn = int(match.group(1)), int(match.group(2))
        if nodes < 1 or ppn < 1:
            raise ValueProblem(f"'{item}': nodes and processes per node must be at least 1")
        problem = (reg.check_bound("nodes", nodes, f"'{item}': nodes") or reg.check_bound("ppn", ppn, f"'{item}': ppn")
                   or reg.check_bound("nprocs", nodes * ppn, f"'{item}': nodes x ppn ="))
        if problem:
            raise ValueProblem(problem)
        if (nodes, ppn) in deployments:
            raise ValueProblem(f"'{item}' is listed twice")
        deployments.append((nodes, ppn))
    problem = registry.load().check_bound("deployments", len(deployments), "deployments")
    if problem:
        raise ValueProblem(problem)
    return deployments


def parse_integer(text, low):
    if not re.fullmatch(r"\d+", text):
        raise ValueProblem(f"'{text}' is not an integer >= {low}")
    return int(text)


def parse_nrun(text):
    value = parse_integer(text, 1)
    problem = registry.load().check_bound("nrun", value, "")
    if problem:
        raise ValueProblem(problem)
    return value


def parse_kernel_integer(name):
    """A setting that is a kernel parameter too (nrep, seed): its range is parameters.csv's."""
    def parse(text):
        low, high = registry.load().parameter_range(name)
        value = parse_integer(text, low)
        if not low <= value <= high:
            raise ValueProblem(f"{value} is outside {low}..{high} (registry/parameters.csv: {name})")
        return value
    return parse


parse_nrep = parse_kernel_integer("nrep")
parse_seed = parse_kernel_integer("seed")


def parse_time_limit(text):
    """Slurm's time formats (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS) -> seconds."""
    match = re.fullmatch(r"(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?", text.strip())
    if not match:
        raise ValueProblem(f"'{text}' is not a time limit (MM, MM:SS, HH:MM:SS or D-HH:MM:SS)")
    days, a, b, c = match.groups()
    numbers = [int(x) for x in (a, b, c) if x is not None]
    if days is not None:
        hours, minutes, seconds = (numbers + [0, 0])[:3]
        total = int(days) * 86400 + hours * 3600 + minutes * 60 + seconds
    elif len(numbers) == 1:
        total = numbers[0] * 60
    elif len(numbers) == 2:
        total = numbers[0] * 60 + numbers[1]
    else:
        total = numbers[0] * 3600 + numbers[1] * 60 + numbers[2]
    if total <= 0:
        raise ValueProblem(f"'{text}' is no time at all")
    return total


def bounded_time(name):
    """A time setting (Slurm's formats) within its bound of registry/limits.csv, in seconds."""
    def parse(text):
        seconds = parse_time_limit(text)
        problem = registry.load().check_bound(name, seconds, f"'{text}' =")
        if problem:
            raise ValueProblem(problem)
        return seconds
    return parse


def format_time_limit(seconds):
    """Seconds as Slurm's D-HH:MM:SS (HH:MM:SS under a day)."""
    days, rest = divmod(seconds, 86400)
    text = f"{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return f"{days}-{text}" if days else text


def parse_yes_no(text):
    if text not in ("yes", "no"):
        raise ValueProblem(f"'{text}' is neither yes nor no")
    return text == "yes"


def bounded_integer(name):
    """An integer setting within its bound of registry/limits.csv."""
    def parse(text):
        value = parse_integer(text, 1)
        problem = registry.load().check_bound(name, value, "")
        if problem:
            raise ValueProblem(problem)
        return value
    return parse


def parse_blocks(text):
    """Interleaved rounds per run: a count within limits.csv's blocks (at most
    nrep: checked with nrep, check_rounds), or `auto` (default_blocks)."""
    if text == "auto":
        return 0
    value = parse_integer(text, 1)
    problem = registry.load().check_bound("blocks", value, "")
    if problem:
        raise ValueProblem(problem)
    return value


def default_blocks(nrep):
    """blocks = auto: nrep / round_reps rounds (registry/limits.csv), at most
    blocks_default_max, at least 1: 50 repetitions -> 10 rounds of 5, 8 -> 2 of 4."""
    reg = registry.load()
    return max(1, min(reg.limits["blocks_default_max"], nrep // reg.limits["round_reps"]))


def parse_warmup(text):
    value = parse_integer(text, 0)
    problem = registry.load().check_bound("warmup", value, "")
    if problem:
        raise ValueProblem(problem)
    return value


def parse_aa(text):
    """The A/A self-check: yes (a twin of every experiment), no, or the share
    of experiments that get a twin (0 < share <= 1; drawn with the campaign seed)."""
    if text in ("yes", "no"):
        return 1.0 if text == "yes" else 0.0
    try:
        share = float(text)
    except ValueError:
        raise ValueProblem(f"'{text}' is not yes, no or a share of the experiments (0 < share <= 1)") from None
    if not 0 < share <= 1:
        raise ValueProblem(f"{text} is not a share of the experiments (0 < share <= 1)")
    return share


def parse_hold_ratio(text):
    try:
        value = float(text)
    except ValueError:
        raise ValueProblem(f"'{text}' is not a number") from None
    problem = registry.load().check_bound("hold_ratio", value, "")
    if problem:
        raise ValueProblem(problem)
    return value


def parse_env_name(text):
    if not text:
        raise ValueProblem("empty environment name")
    return text


PARSERS = {"description": str, "deployments": parse_deployments, "nrun": parse_nrun,
           "nrep": parse_nrep, "time_limit": bounded_time("time_limit"), "seed": parse_seed,
           "env": parse_env_name, "experiments_time_limit": bounded_time("experiments_time_limit"),
           "adaptive": parse_yes_no, "nrun_max": bounded_integer("nrun_max"),
           "nrun_step": bounded_integer("nrun_step"), "hold_ratio": parse_hold_ratio,
           "blocks": parse_blocks, "warmup": parse_warmup, "aa": parse_aa}


@dataclasses.dataclass
class Settings:
    path: str
    description: str = ""
    deployments: list = dataclasses.field(default_factory=list)
    nrun: int = 0
    nrep: int = 0
    time_limit: int = 0
    seed: int = 1
    env: str = ""
    experiments_time_limit: int = dataclasses.field(
        default_factory=lambda: registry.load().bounds["experiments_time_limit"].default)
    adaptive: bool = False      # rounds until every test is decided (gen/rounds.py)
    nrun_max: int = 0           # adaptive: runs per deployment and set at most (0: not set)
    nrun_step: int = 0          # adaptive: runs added per round (0: not set, nrun)
    hold_ratio: float = 0.0     # a test holds below it (0: not set, the ratio threshold)
    blocks: int = 0             # interleaved rounds per run (0: auto, default_blocks(nrep))
    warmup: int = dataclasses.field(default_factory=lambda: registry.load().bounds["warmup"].default)
    aa: float = 0.0             # share of the experiments with an A/A twin (0: none)
    param_sets: dict = dataclasses.field(default_factory=dict)  # name -> {parameter: value}
    param_set_library: dict = dataclasses.field(default_factory=dict)  # name -> the only library it is for
    sources: dict = dataclasses.field(default_factory=dict)     # setting -> where it was given

    def as_json(self):
        return {"description": self.description,
                "deployments": [f"{n}x{p}" for n, p in self.deployments],
                "nrun": self.nrun, "nrep": self.nrep,
                "time_limit": format_time_limit(self.time_limit), "seed": self.seed,
                "env": self.env, "experiments_time_limit": self.experiments_time_limit,
                "param_sets": self.param_sets, "param_set_library": self.param_set_library,
                "adaptive": self.adaptive, "nrun_max": self.nrun_max or None,
                "nrun_step": self.nrun_step or None, "hold_ratio": self.hold_ratio or None,
                "blocks": self.rounds(), "warmup": self.warmup, "aa": self.aa or None,
                "sources": self.sources}

    def rounds(self):
        """The interleaved rounds of every run: blocks, or its default for nrep."""
        return self.blocks or default_blocks(self.nrep)


def apply_setting(settings, key, text, where):
    """Sets KEY from TEXT; raises ValueProblem with the reason."""
    setattr(settings, key, PARSERS[key](text))
    settings.sources[key] = where


def read_settings(path):
    """Settings of campaign.conf at PATH; every mistake names its line."""
    settings = Settings(path=str(path))
    seen = {}
    sections = {}
    current = None
    for entry in read_entries(path):
        if entry.key == "":
            current = start_section(entry, sections)
            continue
        if current is not None and entry.key == "library":
            settings.param_set_library[entry.section.partition(" ")[2]] = library_of_set(entry)
            continue
        if current is not None:
            add_parameter(entry, current)
            continue
        if entry.key not in PARSERS:
            raise entry.error(f"unknown setting '{entry.key}' (settings: {', '.join(PARSERS)}; "
                              "library parameters go in a [param_set NAME] section)")
        if entry.key in seen:
            raise entry.error(f"{entry.key} is given twice (first on line {seen[entry.key]})")
        seen[entry.key] = entry.line
        try:
            apply_setting(settings, entry.key, entry.value, f"{display_path(path)}:{entry.line}")
        except ValueProblem as e:
            raise entry.error(f"{entry.key}: {e}") from None
    missing = [key for key in REQUIRED if key not in seen]
    if missing:
        raise ConfigError(path, 0, f"missing setting{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
    settings.param_sets = {name: values for name, (values, _) in sections.items()} or {"default": {}}
    return settings


def start_section(entry: Entry, sections):
    kind, _, name = entry.section.partition(" ")
    if kind != "param_set":
        raise entry.error(f"unknown section [{entry.section}] (the only section is [param_set NAME])")
    if not NAME.match(name):
        raise entry.error(f"[{entry.section}]: a parameter set needs a name of letters, digits, '_' or '.'")
    if name in sections:
        raise entry.error(f"parameter set {name} is defined twice (first on line {sections[name][1]})")
    sections[name] = ({}, entry.line)
    return sections[name][0]


def library_of_set(entry: Entry):
    """`library = NAME` in a [param_set]: the set is for that library's environments only."""
    if not re.fullmatch(r"[A-Za-z0-9_.+-]+", entry.value):
        raise entry.error(f"library: '{entry.value}' is not a library name (an environment's library, "
                          "e.g. openmpi or mpich)")
    return entry.value


def add_parameter(entry: Entry, values):
    if not PARAMETER.match(entry.key):
        raise entry.error(f"'{entry.key}' is not a library parameter name")
    if entry.key in values:
        raise entry.error(f"{entry.key} is set twice in [{entry.section}]")
    if entry.value == "":
        raise entry.error(f"{entry.key}: empty value")
    values[entry.key] = entry.value


@dataclasses.dataclass
class Overrides:
    """What --set asked for, sorted by kind."""
    settings: dict = dataclasses.field(default_factory=dict)     # setting -> text
    levels: dict = dataclasses.field(default_factory=dict)       # parameter -> [values]
    param_sets: list = dataclasses.field(default_factory=list)   # names to keep
    launch_env: list = dataclasses.field(default_factory=list)   # [(VAR, value)]
    given: list = dataclasses.field(default_factory=list)        # the --set items as typed


def parse_overrides(items):
    """--set KEY=VALUE items -> Overrides; an unknown key or a bad value is an error."""
    reg = registry.load()
    result = Overrides(given=list(items))
    for item in items:
        key, equals, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not equals or not key:
            raise NbhError(f"--set {item}: expected KEY=VALUE")
        try:
            if key in PARSERS:
                PARSERS[key](value)
                result.settings[key] = value
            elif key == "launch_env":
                result.launch_env.append(parse_variable(value))
            elif key == "param_set":
                result.param_sets = split_list(value)
            elif key in reg.design_parameters:
                result.levels[key] = parse_levels(reg, key, value)
            else:
                known = list(PARSERS) + ["param_set", "launch_env"] + reg.design_parameters
                raise ValueProblem(closest_name.unknown("key", key, known,
                                                        "nbhbench generate --help, nbhbench list parameters"))
        except (ValueProblem, rules.RowError) as e:
            raise NbhError(f"--set {item}: {e}") from None
    return result


def split_list(text):
    values = [v.strip() for v in text.split(",")]
    if not all(values):
        raise ValueProblem(f"'{text}' has an empty item")
    return values


def parse_levels(reg, key, text):
    values = [rules.parse_value(reg, key, v) for v in split_list(text)]
    if key in rules.WORD_TABLES:
        for v in values:
            rules.check_word(reg, key, v)
    return values


def parse_variable(text):
    name, equals, value = text.partition("=")
    if not equals or not VARIABLE.match(name):
        raise ValueProblem(f"'{text}' is not VAR=value")
    return name, value


def apply_overrides(settings, overrides):
    """SETTINGS with the --set settings and parameter-set choice applied."""
    for key, text in overrides.settings.items():
        apply_setting(settings, key, text, "--set")
    if overrides.param_sets:
        unknown = [n for n in overrides.param_sets if n not in settings.param_sets]
        if unknown:
            raise NbhError(f"--set param_set: the campaign has no parameter set {unknown[0]} "
                           f"(it has: {', '.join(settings.param_sets)})")
        settings.param_sets = {n: settings.param_sets[n] for n in overrides.param_sets}
        settings.sources["param_sets"] = "--set"
    check_rounds(settings)
    check_blocks(settings)
    check_run_count(settings)
    return settings


def check_blocks(settings):
    """blocks at most nrep: every round needs a repetition of every experiment."""
    if settings.blocks > settings.nrep:
        where = ", ".join(f"{k} from {settings.sources.get(k, 'campaign.conf')}" for k in ("blocks", "nrep"))
        raise NbhError(f"blocks {settings.blocks} is more than nrep {settings.nrep} ({where}): every round needs "
                       "at least one repetition of every experiment; use blocks <= nrep")


def check_rounds(settings):
    """The adaptive keys agree with each other and with nrun (gen/rounds.py):
    nrun_max at least nrun; an adaptive campaign needs nrun_max; hold_ratio
    at least the ratio threshold. Each mistake names where the values came from."""
    def where(key):
        return f"{key} from {settings.sources.get(key, 'campaign.conf')}"
    if settings.nrun_max and settings.nrun_max < settings.nrun:
        raise NbhError(f"nrun_max {settings.nrun_max} is below nrun {settings.nrun} ({where('nrun_max')}, "
                       f"{where('nrun')}): the budget of an adaptive campaign includes its first round")
    if settings.adaptive and not settings.nrun_max:
        raise NbhError(f"adaptive = yes ({where('adaptive')}) needs nrun_max, the most runs per deployment and "
                       "parameter set (e.g. --set nrun_max=30)")
    v_thres = float(registry.load().analysis["v_thres"])
    if settings.hold_ratio and settings.hold_ratio < v_thres:
        raise NbhError(f"hold_ratio {settings.hold_ratio:g} ({where('hold_ratio')}) is below the ratio threshold "
                       f"{v_thres:g} (registry/analysis.csv v_thres): a test whose ratio is surely below "
                       f"{v_thres:g} can never be violated, so it holds already; use hold_ratio >= {v_thres:g}")


def check_run_count(settings):
    """deployments x parameter sets x nrun within the runs bound, naming where each came from."""
    key = "nrun_max" if settings.nrun_max else "nrun"
    nrun = settings.nrun_max or settings.nrun
    runs = len(settings.deployments) * len(settings.param_sets) * nrun
    problem = registry.load().check_bound("runs", runs, "runs")
    if problem:
        where = ", ".join(f"{k} from {settings.sources.get(k, 'campaign.conf')}"
                          for k in ("deployments", "param_sets", key))
        raise NbhError(f"{len(settings.deployments)} deployments x {len(settings.param_sets)} parameter sets x "
                       f"{key} {nrun} ({where}): {problem}")


def sets_for_library(settings, library, chosen_by_set=False):
    """SETTINGS keeping the parameter sets meant for LIBRARY (all without
    `library = ...`); returns the names of those left out. A set chosen
    with --set param_set for another library is an error."""
    other = [n for n in settings.param_sets if settings.param_set_library.get(n, library) != library]
    if other and chosen_by_set:
        raise NbhError(f"--set param_set: parameter set {other[0]} is for "
                       f"{settings.param_set_library[other[0]]}, not {library}")
    if other and len(other) == len(settings.param_sets):
        raise NbhError(f"every parameter set of the campaign is for another library than {library} "
                       f"({', '.join(f'{n}: {settings.param_set_library[n]}' for n in other)})")
    settings.param_sets = {n: v for n, v in settings.param_sets.items() if n not in other}
    return other
