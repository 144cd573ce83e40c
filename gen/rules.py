"""The kernel's input rules (docs/kernel.md; kernel/input.c), checked before
anything runs: which parameters apply to which experiment, their defaults,
the values the kernel accepts, and what a process count makes impossible.

The names (operations, topologies, ...), where each parameter applies, the
numeric ranges and the kernel's limits all come from the registry, which the
kernel is compiled from.
"""
import math
import numbers

from gen import closest_name, layouts
from gen.graphs import spec as graph_spec

WORD_TABLES = {"op": "operations", "topology": "topologies", "constructor": "constructors",
               "order": "orders", "datatype": "datatypes", "layout": "layouts",
               "type_constructor": "type_constructors", "packing": "packings",
               "arrival": "arrivals", "sync": "syncs"}
# Defaults the kernel computes from the run's process count: the cell stays empty.
PER_RUN_DEFAULTS = {"p/2"}


class RowError(ValueError):
    """A value the kernel would reject; `parameter` names its column.
    `about_row`: whether the rest of the experiment helps to see why (an
    unknown name is wrong in any experiment)."""

    def __init__(self, parameter, message, about_row=True):
        super().__init__(message)
        self.parameter = parameter
        self.about_row = about_row


def applies(reg, parameter, op, topology, row=None, layout=None):
    """Whether PARAMETER applies to an experiment (registry parameters.csv
    applies_to; msize and the geometry also by the LAYOUT, layouts.csv).
    ROW: the experiment's parameters so far (its arrival pattern)."""
    where = reg.parameters[parameter]["applies_to"]
    if where == "all":
        return True
    if where == "grid topologies":
        return reg.topologies[topology]["grid"] == "1"
    if where == "layouts that use it":
        return layout is not None and parameter in layouts.layout_parameters(reg, layout)
    if where == "operations that move data":
        moves = reg.operations[op]["moves_data"] == "1"
        return moves and not (parameter == "msize" and layout and layouts.msize_derived(reg, layout))
    if where == "arrival patterns":
        return (row or {}).get("arrival") not in (None, "none")
    if where == "twins":
        return (row or {}).get("twin") == 1
    if where in reg.arrivals:
        return (row or {}).get("arrival") == where
    names = where.split()
    unknown = [n for n in names if n not in reg.topologies]
    if unknown:
        raise RuntimeError(f"registry/parameters.csv: {parameter}: cannot read applies_to '{where}'")
    return topology in names


def default(reg, parameter, topology, layout=None):
    """The value an empty applicable cell means (parameters.csv default), or None if required."""
    text = reg.parameters[parameter]["default"]
    prefix = "first of the topology's "
    if text.startswith(prefix):
        return reg.topology_list(topology, text[len(prefix):])[0]
    if text == "the layout's normal constructor":
        return reg.layouts[layout]["normal"]
    return text or None


def allowed_words(reg, parameter, topology=None):
    """The names PARAMETER may take (for constructor/order: on TOPOLOGY)."""
    if parameter in ("constructor", "order") and topology is not None:
        return reg.topology_list(topology, parameter + "s")
    return list(getattr(reg, WORD_TABLES[parameter]))


def is_empty(value):
    if value is None:
        return True
    if isinstance(value, float) and math.isnan(value):
        return True
    return isinstance(value, str) and value.strip() == ""


def parse_value(reg, parameter, value):
    """VALUE as the kernel would read it: an int, a float or a registry name."""
    kind = reg.parameters[parameter]["type"]
    text = str(value).strip()
    if kind in ("word", "path"):  # path: a file name (graph), taken as written
        if not isinstance(value, str):
            raise RowError(parameter, f"{value!r} is not a name")
        return text
    if kind == "integer":
        if isinstance(value, bool) or (isinstance(value, numbers.Real) and not float(value).is_integer()):
            raise RowError(parameter, f"'{text}' is not an integer")
        try:
            number = int(value) if isinstance(value, numbers.Real) else int(text, 10)
        except ValueError:
            raise RowError(parameter, f"'{text}' is not an integer") from None
        low, high = reg.parameter_range(parameter)
        if (low is not None and number < low) or (high is not None and number > high):
            raise RowError(parameter, f"{number} is outside {low}..{high}")
        return number
    try:
        number = float(value) if not isinstance(value, bool) else math.nan
    except ValueError:
        number = math.nan
    if not math.isfinite(number) or number < 0:
        raise RowError(parameter, f"'{text}' is not a number >= 0")
    low, high = reg.parameter_range(parameter)
    if high is not None and number > high:
        raise RowError(parameter, f"{text} is outside {low}..{high} (registry/parameters.csv)")
    return int(number) if number.is_integer() else number


def check_word(reg, parameter, value, topology=None):
    names = allowed_words(reg, parameter, topology)
    if value in names:
        return
    if topology is not None and value in allowed_words(reg, parameter):
        raise RowError(parameter, f"{value} does not apply to topology {topology} "
                       f"(it takes: {', '.join(names)})")
    raise RowError(parameter, closest_name.unknown(parameter, value, names, f"nbhbench list {parameter}"),
                   about_row=False)


def complete(reg, raw):
    """The experiment RAW (parameter -> value, missing or empty = not given) as
    the kernel runs it: every applicable parameter explicit (defaults filled
    in), every other one None. Raises RowError where the kernel would refuse."""
    row = {}
    for parameter in ("op", "topology"):
        if is_empty(raw.get(parameter)):
            raise RowError(parameter, f"no {parameter} given (every experiment needs one)")
        row[parameter] = parse_value(reg, parameter, raw[parameter])
        check_word(reg, parameter, row[parameter])
    op, topology = row["op"], row["topology"]
    layout = None
    if applies(reg, "layout", op, topology):  # msize and the geometry depend on it
        layout = parse_value(reg, "layout", default(reg, "layout", topology) if is_empty(raw.get("layout"))
                             else raw["layout"])
        check_word(reg, "layout", layout)
    for parameter in reg.design_parameters:
        if parameter in row:
            continue
        value = raw.get(parameter)
        if not applies(reg, parameter, op, topology, row, layout):
            if not is_empty(value):
                raise RowError(parameter, not_applicable(reg, parameter, value, op, topology, row, layout))
            row[parameter] = None
            continue
        if is_empty(value):
            value = default(reg, parameter, topology, layout)
            if value in PER_RUN_DEFAULTS:
                row[parameter] = None
                continue
            if value is None:
                what = f"arrival {row['arrival']}" if parameter == "arrival_us" else \
                    f"layout {layout}" if parameter in layouts.GEOMETRY else f"op {op} on topology {topology}"
                raise RowError(parameter, f"no {parameter} given (required for {what})")
        row[parameter] = parse_value(reg, parameter, value)
        if parameter in WORD_TABLES:
            check_word(reg, parameter, row[parameter],
                       topology if parameter in ("constructor", "order") else None)
    check_relations(reg, row)
    return row


def not_applicable(reg, parameter, value, op, topology, row, layout=None):
    """Why PARAMETER may not be given to this experiment."""
    if parameter == "sync":
        return (f"sync={value}: op {op} cannot run in windows of a global clock (each repetition builds and "
                "frees a communicator): sync applies to operations that move data (leave it out)")
    where = reg.parameters[parameter]["applies_to"]
    if where == "arrival patterns" or where in reg.arrivals:
        return f"{parameter} does not apply to arrival {row.get('arrival') or 'none'} (leave it out)"
    why = f"topology {topology}" if parameter in ("ndim", "nfin", "radius", "order") else \
        f"layout {layout}" if layout and parameter in ["msize", *layouts.GEOMETRY] else f"op {op}"
    return f"{parameter} does not apply to {why} (leave it out)"


def check_relations(reg, row):
    """Rules between parameters: nfin <= ndim, msize a multiple of the datatype size,
    busy work given in microseconds or as a factor, not both; a design's graph is a
    graph spec (gen/graphs/spec.py)."""
    if row.get("graph") is not None:
        try:
            graph_spec.parse(row["graph"])
        except graph_spec.SpecError as e:
            raise RowError("graph", str(e)) from None
    if row["ndim"] is not None and not 0 <= row["nfin"] <= row["ndim"]:
        raise RowError("nfin", f"nfin {row['nfin']} is outside 0..ndim ({row['ndim']})")
    if row["msize"] is not None:
        size = int(reg.datatypes[row["datatype"]]["size"])
        if row["msize"] % size:
            raise RowError("msize", f"{row['msize']} is not a multiple of the {row['datatype']} size ({size} bytes)")
    if (row.get("work_us") or 0) > 0 and (row.get("work_factor") or 0) > 0:
        raise RowError("work_factor", f"work_factor {row['work_factor']} given with work_us {row['work_us']}: "
                       "give the busy work in microseconds or as a factor, not both")
    try:
        layouts.check(reg, row)
    except layouts.LayoutError as e:
        raise RowError(e.parameter, str(e)) from None


def manhattan_ball(ndim, radius):
    """Points c with sum|c_i| <= radius in ndim dimensions (the origin included)."""
    return sum(2 ** k * math.comb(ndim, k) * math.comb(radius, k) for k in range(min(ndim, radius) + 1))


def max_degree(row, nprocs):
    """Neighbors per process, at most (kernel/topologies/topologies.c)."""
    topology = row["topology"]
    if topology == "cart":
        return 2 * row["ndim"]
    if topology == "moore":
        return (2 * row["radius"] + 1) ** row["ndim"] - 1
    if topology == "vneum":
        return manhattan_ball(row["ndim"], row["radius"]) - 1
    return nprocs - 1


def buffer_bytes(reg, row, degree, nprocs):
    """Send plus receive buffer bytes per process (kernel/setups/buffers.c;
    a layout's: kernel/datatypes/geometry.c)."""
    blocks = reg.blocks(row["op"], "recv", degree, nprocs) + reg.blocks(row["op"], "send", degree, nprocs)
    return layouts.buffer_bytes(reg, row, degree, nprocs, lambda msize: blocks * msize)


def deployment_problem(reg, row, nprocs):
    """Why the kernel would refuse experiment ROW on NPROCS processes, or None."""
    degree = max_degree(row, nprocs)
    if degree > reg.limits["max_degree"]:
        return f"{degree} neighbors per process, more than the kernel's {reg.limits['max_degree']}"
    if row.get("late_rank") is not None and row["late_rank"] >= nprocs:
        return f"late_rank {row['late_rank']} is not a process: the run has {nprocs} (ranks 0..{nprocs - 1})"
    if reg.topologies[row["topology"]]["radius"] == "1" and nprocs == 1 and row["nfin"] == row["ndim"]:
        return (f"radius {row['radius']} is impossible on 1 process: every dimension is finite "
                "and of extent 1, so no process has a neighbor")
    if row.get("graph") is not None:  # a graph's degrees and counts are its file's: gen/graphs/buffers.py
        return None
    problem = layouts.deployment_problem(reg, row, nprocs)
    if problem:
        return problem
    need = buffer_bytes(reg, row, degree, nprocs)
    if need > reg.limits["max_memory"]:
        what = f"msize {row['msize']}" if row["msize"] is not None else \
            f"layout {row['layout']} ({', '.join(f'{p}={row[p]}' for p in layouts.layout_parameters(reg, row['layout']))})"
        return f"{what} needs {need} bytes of buffers per process, over the kernel's {reg.limits['max_memory']}"
    return layouts.displacement_problem(reg, row, degree, nprocs)

