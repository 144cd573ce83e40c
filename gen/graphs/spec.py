"""The graph spec a campaign gives as the value of parameter `graph`
(docs/campaigns.md "Graphs"): a source kind, then KEY=VALUE words.

    stencil2d n=64                       2-D 5-point stencil on n^2 unknowns
    stencil3d n=20 [points=7|27]         3-D 7-point (default) or 27-point stencil on n^3 unknowns
    rgg n=5000 radius=0.05 [dim=2|3] [seed=1]
                                         random geometric graph: n points in the unit square
                                         (dim 2) or cube (dim 3), neighbors within radius
    mtx file=PATH                        a Matrix Market file (PATH relative to the campaign)
    edges file=PATH                      a process-level edge list CSV source,dest,bytes

Matrix sources (all but edges) are partitioned into p parts:
    partition=metis (default) [partition_seed=1]   METIS k-way, the seed recorded
    partition=geometric                            recursive coordinate bisection of the rows'
                                                   points (stencils: grid positions; rgg: its
                                                   points); not for mtx, which has none
    partition=PATH                                 one 0-based part id per row; {p} in PATH
                                                   is replaced by the process count (a file
                                                   named metis or geometric: ./metis)
"""
import dataclasses
import hashlib
import re

from gen.errors import NbhError

MATRIX_KINDS = ("stencil2d", "stencil3d", "rgg", "mtx")
KINDS = MATRIX_KINDS + ("edges",)
POINT_KINDS = ("stencil2d", "stencil3d", "rgg")  # matrices whose rows have coordinates
METHODS = ("metis", "geometric")  # partition= values that are not a partition file
# kind -> {key: (required, default)}
ARGUMENTS = {
    "stencil2d": {"n": (True, None), "points": (False, "5")},
    "stencil3d": {"n": (True, None), "points": (False, "7")},
    "rgg": {"n": (True, None), "radius": (True, None), "dim": (False, "2"), "seed": (False, "1")},
    "mtx": {"file": (True, None)},
    "edges": {"file": (True, None)},
}
PARTITION_KEYS = {"partition": (False, "metis"), "partition_seed": (False, "1")}
MAX_UNKNOWNS = 10 ** 8
INTEGER = re.compile(r"[0-9]+$")


class SpecError(NbhError):
    """A spec that cannot name a graph; the caller adds where it came from."""


@dataclasses.dataclass(frozen=True)
class GraphSpec:
    text: str            # as the campaign wrote it
    kind: str
    arguments: tuple     # ((key, value), ...) in ARGUMENTS order, defaults filled in
    partition: str       # "metis", "geometric", a partition file path, or "" (edge lists)
    partition_seed: int  # METIS seed (0 for geometric, a partition file or an edge list)

    def get(self, key):
        return dict(self.arguments)[key]

    @property
    def canonical(self):
        words = [self.kind] + [f"{k}={v}" for k, v in self.arguments]
        if self.partition:
            words.append(f"partition={self.partition}")
        return " ".join(words)

    @property
    def key(self):
        """The graph file's name stem: readable, unique per canonical spec (seed excluded)."""
        if self.kind in ("mtx", "edges"):
            stem = re.sub(r"\.[^./]*$", "", self.get("file").rsplit("/", 1)[-1])
            readable = f"{self.kind}-{stem}"
        else:
            readable = "-".join([self.kind] + [f"{k}{v}" for k, v in self.arguments])
        readable = re.sub(r"[^A-Za-z0-9_.+-]", "_", readable)[:60]
        digest = hashlib.sha256(self.canonical.encode()).hexdigest()[:8]
        return f"{readable}-{digest}"

    @property
    def uses_metis(self):
        return self.partition == "metis"

    @property
    def uses_partition_file(self):
        return self.partition not in METHODS + ("",)

    def file_name(self, nprocs):
        """graphs/<key>.p<P>.s<seed>.csv (docs/kernel.md "Graph files"); seed 0 unless METIS partitions."""
        return f"{self.key}.p{nprocs}.s{self.partition_seed}.csv"

    def partition_file(self, nprocs):
        return self.partition.replace("{p}", str(nprocs))


def parse(text):
    """TEXT as a GraphSpec; SpecError says what is wrong."""
    if not isinstance(text, str) or not text.strip():
        raise SpecError(f"graph {text!r}: an empty spec (e.g. 'stencil3d n=20'; kinds: {', '.join(KINDS)})")
    if "," in text or '"' in text:
        raise SpecError(f"graph '{text}': commas and quotes are not allowed (words are separated by spaces)")
    words = text.split()
    kind = words[0]
    if kind not in ARGUMENTS:
        raise SpecError(f"graph '{text}': unknown kind '{kind}' (kinds: {', '.join(KINDS)})")
    allowed = dict(ARGUMENTS[kind], **(PARTITION_KEYS if kind in MATRIX_KINDS else {}))
    given = {}
    for word in words[1:]:
        key, equal, value = word.partition("=")
        if not equal or not value:
            raise SpecError(f"graph '{text}': '{word}' is not KEY=VALUE")
        if key not in allowed:
            raise SpecError(f"graph '{text}': {kind} takes no '{key}' (it takes: {', '.join(allowed)})")
        if key in given:
            raise SpecError(f"graph '{text}': {key} given twice")
        given[key] = value
    for key, (required, _) in allowed.items():
        if required and key not in given:
            raise SpecError(f"graph '{text}': {kind} needs {key}=...")
    values = {k: given.get(k, default) for k, (_, default) in allowed.items()}
    problem = check_values(kind, values)
    if problem:
        raise SpecError(f"graph '{text}': {problem}")
    arguments = tuple((k, values[k]) for k in ARGUMENTS[kind])
    if kind == "edges":
        return GraphSpec(text, kind, arguments, "", 0)
    partition = values["partition"]
    if partition != "metis" and "partition_seed" in given:
        raise SpecError(f"graph '{text}': partition_seed applies to partition=metis only")
    if partition == "geometric" and kind not in POINT_KINDS:
        raise SpecError(f"graph '{text}': partition=geometric needs the rows' coordinates, which {kind} has not "
                        f"(only {', '.join(POINT_KINDS)}); use partition=metis or a partition file")
    seed = int(values["partition_seed"]) if partition == "metis" else 0
    return GraphSpec(text, kind, arguments, partition, seed)


def integer(values, key, low, high):
    text = values[key]
    if not INTEGER.match(text) or not low <= int(text) <= high:
        return f"{key}={text} is not an integer in {low}..{high}"
    return None


def check_values(kind, values):
    """Why the arguments of a KIND spec are wrong, or None."""
    problems = []
    if kind in MATRIX_KINDS and values["partition"] == "metis":
        problems.append(integer(values, "partition_seed", 0, 2 ** 31 - 1))
    if kind == "stencil2d":
        problems += [integer(values, "n", 1, 10 ** 4),
                     None if values["points"] == "5" else f"points={values['points']}: stencil2d has points=5 only"]
    elif kind == "stencil3d":
        problems += [integer(values, "n", 1, round(MAX_UNKNOWNS ** (1 / 3))),
                     None if values["points"] in ("7", "27") else
                     f"points={values['points']}: stencil3d takes points=7 or points=27"]
    elif kind == "rgg":
        problems += [integer(values, "n", 1, 10 ** 7), integer(values, "seed", 0, 2 ** 63 - 1),
                     None if values["dim"] in ("2", "3") else f"dim={values['dim']}: rgg takes dim=2 or dim=3"]
        try:
            radius = float(values["radius"])
        except ValueError:
            radius = -1.0
        if not 0 < radius <= 1:
            problems.append(f"radius={values['radius']} is not a number in (0, 1]")
    return next((p for p in problems if p), None)
