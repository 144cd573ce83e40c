"""The language a campaign's experiments.py writes its experiments in.

A design is a table of parameter combinations, built like the study's
Table 2 reads:

    from gen.design import levels, cross, union, where, sqrt2_sizes

    grids = levels(ndim=[1, 2, 3, 4], nfin=lambda ndim: {0, ndim})  # for every ndim, nfin in {0, ndim}
    neighborhoods = union(
        levels(topology="cart"),                                    # Cartesian has no order
        levels(topology=["vneum", "moore"], radius=1, constructor="dist_graph_adjacent",
               order=["FMAJ", "LMAJ", "RAND"]),
    )
    EXPERIMENTS = cross(levels(op=["neighbor_allgather", "neighbor_alltoall"]),
                        neighborhoods, grids, levels(reorder=[0, 1]),
                        levels(msize=sqrt2_sizes(256, 15)))

- levels(name=LEVELS, ...): every combination of the given levels, in the
  order written. LEVELS is one value, a list/range/set of values, or a
  function of parameters named before it in the same call (a relation:
  `nfin=lambda ndim: {0, ndim}`).
- cross(a, b, ...): every row of a with every row of b ("for every ...").
- union(a, b, ...): the rows of a, then those of b (alternatives); a
  parameter one part does not give is left to the kernel's default, or does
  not apply.
- where(design, predicate): the rows for which predicate(named parameters)
  is true.
- operations(family=..., blocking=..., ...): the operations of
  registry/operations.csv whose columns have the given values, in registry
  order (so a campaign never retypes the list).
- campaign_design(name): the EXPERIMENTS of another shipped campaign.
Parameters a design leaves out get the kernel's defaults; parameters that do
not apply (order on cart, msize for create) must be left out. Each value
remembers the line of experiments.py that gave it, so a mistake is reported
there.
"""
import inspect
import math
import pathlib
import runpy
import sys

import pandas as pd

from gen import closest_name, registry
from gen.errors import NbhError

LINE = "@line"  # suffix of the hidden column holding each value's source line
THIS_FILE = str(pathlib.Path(__file__).resolve())


class DesignError(NbhError):
    """A mistake in a design; the loader adds the file and line."""


class Design:
    """A table of experiments, one parameter per column."""

    def __init__(self, frame):
        self.frame = frame.reset_index(drop=True)

    @property
    def parameters(self):
        return [c for c in self.frame.columns if not c.endswith(LINE)]

    @property
    def table(self):
        """The experiments as a DataFrame, without the source-line columns."""
        return self.frame[self.parameters]

    def records(self):
        """Rows as dicts, with PARAMETER@line entries for the lines that gave each value."""
        return self.frame.to_dict("records")

    def __len__(self):
        return len(self.frame)

    def __repr__(self):
        return f"Design({len(self)} experiments: {', '.join(self.parameters)})"


def caller_line():
    """The line outside this module that called into it (the campaign file's)."""
    frame = sys._getframe(1)
    while frame and str(pathlib.Path(frame.f_code.co_filename).resolve()) == THIS_FILE:
        frame = frame.f_back
    return frame.f_lineno if frame else 0


def check_parameter(name):
    reg = registry.load()
    if name in reg.design_parameters:
        return
    if name in reg.parameters:
        raise DesignError(f"{name} is a campaign setting (campaign.conf or --set), not a design parameter")
    raise DesignError(closest_name.unknown("parameter", name, reg.design_parameters, "nbhbench list parameters"))


def as_levels(name, spec, literal=True):
    """SPEC (one value or a collection) as a list of distinct levels."""
    if isinstance(spec, (str, bytes, int, float)) or spec is None:
        values = [spec]
    elif isinstance(spec, (set, frozenset)):
        try:
            values = sorted(spec)
        except TypeError:
            raise DesignError(f"{name}: the levels {spec!r} cannot be ordered") from None
    else:
        try:
            values = list(spec)
        except TypeError:
            raise DesignError(f"{name}: {spec!r} is neither a value nor a list of values") from None
    values = [v.item() if hasattr(v, "item") else v for v in values]  # numpy scalars
    if not values:
        raise DesignError(f"{name}: no levels")
    distinct = list(dict.fromkeys(values))
    if literal and len(distinct) != len(values):
        twice = next(v for v in distinct if values.count(v) > 1)
        raise DesignError(f"{name}: level {twice!r} given twice")
    return distinct


def call_relation(name, function, row):
    """Levels of NAME for ROW from a function of earlier parameters."""
    try:
        arguments = list(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        raise DesignError(f"{name}: {function!r} is not a function of parameters") from None
    missing = [a for a in arguments if a not in row]
    if missing:
        raise DesignError(f"{name}: the relation needs {', '.join(missing)}, "
                          "which must be given before it in the same levels()")
    return as_levels(name, function(**{a: row[a] for a in arguments}), literal=False)


def levels(**parameters):
    """Every combination of the given levels (see the module help)."""
    line = caller_line()
    rows = [{}]
    for name, spec in parameters.items():
        check_parameter(name)
        if callable(spec):
            rows = [dict(row, **{name: value, name + LINE: line})
                    for row in rows for value in call_relation(name, spec, row)]
        else:
            values = as_levels(name, spec)
            rows = [dict(row, **{name: value, name + LINE: line}) for row in rows for value in values]
    if not parameters:
        raise DesignError("levels() needs at least one parameter")
    return Design(pd.DataFrame(rows, dtype=object))


def as_design(part, what):
    if not isinstance(part, Design):
        raise DesignError(f"{what}: {part!r} is not a design (build one with levels())")
    return part


def cross(*designs):
    """Every combination of the rows of the designs."""
    if not designs:
        raise DesignError("cross() needs at least one design")
    result = as_design(designs[0], "cross")
    for part in designs[1:]:
        part = as_design(part, "cross")
        twice = sorted(set(result.parameters) & set(part.parameters))
        if twice:
            raise DesignError(f"cross: parameter {twice[0]} is given by two of the crossed designs "
                              "(cross combines different parameters; use union for alternatives)")
        result = Design(result.frame.merge(part.frame, how="cross"))
    return result


def union(*designs):
    """The rows of each design, one after the other."""
    if not designs:
        raise DesignError("union() needs at least one design")
    frames = [as_design(part, "union").frame for part in designs]
    return Design(pd.concat(frames, ignore_index=True, sort=False).astype(object)
                  .where(lambda f: f.notna(), None))


def where(design, predicate):
    """The rows of DESIGN for which PREDICATE(named parameters) is true."""
    design = as_design(design, "where")
    arguments = list(inspect.signature(predicate).parameters)
    unknown = [a for a in arguments if a not in design.parameters]
    if unknown:
        raise DesignError(f"where: the design has no parameter {unknown[0]} "
                          f"(it has: {', '.join(design.parameters)})")
    keep = [bool(predicate(**{a: row[a] for a in arguments})) for row in design.records()]
    return Design(design.frame[keep])


def operations(**columns):
    """Names of registry/operations.csv whose COLUMNS have the given values,
    e.g. operations(family="neighbor", blocking=1); a list is any of its
    values: operations(family="global", pattern=["allgather", "alltoall"])."""
    table = registry.load().operations
    known = next(iter(table.values())).keys()
    unknown = [c for c in columns if c not in known]
    if unknown:
        raise DesignError(f"operations: registry/operations.csv has no column {unknown[0]} "
                          f"(it has: {', '.join(known)})")
    wanted = {c: [str(x) for x in v] if isinstance(v, (list, tuple)) else [str(v)] for c, v in columns.items()}
    names = [name for name, row in table.items() if all(row[c] in v for c, v in wanted.items())]
    if not names:
        raise DesignError(f"operations: no operation has {columns}")
    return names


def campaign_design(name):
    """The EXPERIMENTS design of campaigns/NAME (one design, two campaigns)."""
    path = registry.ROOT / "campaigns" / name / "experiments.py"
    if not path.is_file():
        raise DesignError(f"campaign_design: no campaign {name} under campaigns/")
    design = runpy.run_path(str(path), run_name="campaign_experiments").get("EXPERIMENTS")
    if not isinstance(design, Design):
        raise DesignError(f"campaign_design: {path} defines no EXPERIMENTS design")
    return design


def sqrt2_sizes(first, count):
    """COUNT message sizes first * sqrt(2)^k, k = 0..count-1, rounded down:
    sqrt2_sizes(256, 15) = 256, 362, 512, ..., 32768 (the study's sizes)."""
    return [math.isqrt(first * first << k) for k in range(count)]
