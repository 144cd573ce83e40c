"""The registry (registry/*.csv): the one list of operations, topologies,
constructors, orders, datatypes, layouts, type constructors, packings,
arrival patterns, sync methods, kernel parameters and guidelines."""
import csv
import dataclasses
import functools
import os
import pathlib

ROOT = pathlib.Path(os.environ.get("NBH_ROOT") or pathlib.Path(__file__).resolve().parent.parent)
REGISTRY = ROOT / "registry"


def read_table(name):
    """Rows of registry/NAME.csv as dicts, in file order."""
    with open(REGISTRY / f"{name}.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def by_name(name):
    return {row["name"]: row for row in read_table(name)}


class Registry:
    def __init__(self):
        self.operations = by_name("operations")
        self.topologies = by_name("topologies")
        self.constructors = by_name("constructors")
        self.orders = by_name("orders")
        self.datatypes = by_name("datatypes")
        self.arrivals = by_name("arrivals")
        self.syncs = by_name("syncs")
        self.parameters = by_name("parameters")
        self.layouts = by_name("layouts")
        self.type_constructors = by_name("type_constructors")
        self.packings = by_name("packings")
        self.guidelines = {row["id"]: row for row in read_table("guidelines")}
        self.bounds = {row["name"]: Bound.from_row(row) for row in read_table("limits")}
        # name -> the default, else the maximum (the kernel's NBH_LIMIT_<NAME>)
        self.limits = {name: b.default if b.default is not None else b.high for name, b in self.bounds.items()}
        self.analysis = {row["name"]: row["value"] for row in read_table("analysis")}

    def check_bound(self, name, value, what=None):
        """None, or why VALUE is outside the bound NAME of limits.csv."""
        return self.bounds[name].problem(value, what)

    def blocks(self, op, side, degree, nprocs):
        """How many blocks a process sends (SIDE "send") or receives ("recv")
        in operation OP: operations.csv send_blocks / recv_blocks (one,
        degree, nprocs; none where no data moves). DEGREE may be an array."""
        word = self.operations[op][f"{side}_blocks"]
        return {"one": 1, "degree": degree, "nprocs": nprocs}.get(word, 0)

    def parameter_range(self, parameter):
        """(min, max) the kernel accepts for a numeric parameter (None: unbounded)."""
        row = self.parameters[parameter]
        return (int(row["min"]) if row["min"] else None, int(row["max"]) if row["max"] else None)

    def topology_list(self, topology, column):
        """The space-separated names in a topologies.csv column, e.g. its orders."""
        return self.topologies[topology][column].split()

    @property
    def input_columns(self):
        """Every kernel input parameter, in registry order (the input's header)."""
        return list(self.parameters)

    @property
    def experiment_columns(self):
        """The experiment table's columns (docs/archive.md): all but the run seed."""
        return [name for name in self.parameters if name != "seed"]

    @property
    def design_parameters(self):
        """What a campaign design may vary: not the parameters the campaign's
        settings give every experiment (RUN_PARAMETERS)."""
        return [name for name in self.parameters if name not in RUN_PARAMETERS]


# Kernel input parameters that the campaign's settings give every
# experiment (nrep, seed, blocks, warmup) or that generate and submit write
# themselves (the id; the A/A twins of aa = yes; a resumed attempt's first
# round): no design varies them.
RUN_PARAMETERS = ("id", "nrep", "seed", "blocks", "first_round", "warmup", "twin", "twin_of")


def number(text):
    """A limits.csv cell: int when it is one, else float; None when empty."""
    if not text:
        return None
    return int(text) if text.lstrip("-").isdigit() else float(text)


@dataclasses.dataclass(frozen=True)
class Bound:
    """A row of registry/limits.csv: a number's inclusive range (docs/robustness.md)."""
    name: str
    low: object
    high: object
    default: object
    unit: str
    given_in: str

    @classmethod
    def from_row(cls, row):
        return cls(row["name"], number(row["min"]), number(row["max"]), number(row["default"]),
                   row["unit"], row["given_in"])

    def problem(self, value, what=None):
        """None if VALUE is within the bound, else the reason ("WHAT V is outside LOW..HIGH ...")."""
        if (self.low is None or value >= self.low) and (self.high is None or value <= self.high):
            return None
        unit = f" {self.unit}" if self.unit else ""
        low = "" if self.low is None else self.low
        high = "" if self.high is None else self.high
        what = self.name if what is None else what
        return f"{what + ' ' if what else ''}{value} is outside {low}..{high}{unit} (registry/limits.csv: {self.name})"


@functools.lru_cache(maxsize=None)
def load():
    return Registry()
