"""The registry (registry/*.csv): the one list of operations, topologies,
constructors, orders, datatypes, kernel parameters and guidelines."""
import csv
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
        self.parameters = by_name("parameters")
        self.guidelines = {row["id"]: row for row in read_table("guidelines")}
        self.limits = {row["name"]: int(row["value"]) for row in read_table("limits")}
        self.analysis = {row["name"]: row["value"] for row in read_table("analysis")}

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
        """What a campaign design may vary: not id, nrep, seed (campaign settings)."""
        return [name for name in self.parameters if name not in ("id", "nrep", "seed")]


@functools.lru_cache(maxsize=None)
def load():
    return Registry()
