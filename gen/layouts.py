"""The layout parameters' rules (registry layouts.csv; docs/datatypes.md),
checked at generate as the kernel checks them (kernel/datatypes/geometry.c
layout_problem, with the same messages), the bytes of buffers a layout
needs, and the studies' Variant 1 and Variant 2 geometries (layouts.csv
variant1, variant2) for campaigns:

    from gen.layouts import variants
    cross(variants(["tiled", "block"], [1, 2], [2, 10, 100]), levels(msize=...))
"""
import math
import re
import sys

from gen import registry
from gen.design import LINE, levels, union

GEOMETRY = ["unit", "unit2", "stride", "stride2", "halo_n", "matrix_n"]
# Blocks of msize bytes the kernel's description check packs into before
# the repetitions (kernel/datatypes/geometry.h LAYOUT_CHECK_BLOCKS).
CHECK_BLOCKS = 3
HETERO_SIZES = [1, 4, 8, 2]  # tiled_hetero's unit: char, int, double, short
INT_MAX = 2 ** 31 - 1


class LayoutError(ValueError):
    """A layout the kernel would refuse; `parameter` names its column."""

    def __init__(self, parameter, message):
        super().__init__(message)
        self.parameter = parameter


def layout_parameters(reg, layout):
    return reg.layouts[layout]["parameters"].split()


def msize_derived(reg, layout):
    return reg.layouts[layout]["msize"] == "derived"


def is_static(layout):
    return layout not in ("halo", "transpose")


def pattern(row):
    """(elements k, extent E) of a static layout's block (tiled_hetero: bytes)."""
    layout = row["layout"]
    a, a2, b, b2 = row.get("unit"), row.get("unit2"), row.get("stride"), row.get("stride2")
    if layout == "tiled":
        return a, b
    if layout == "block":
        return 2 * a, b + b2
    if layout == "bucket":
        return a + a2, 2 * b
    if layout == "alternating":
        return a + a2, b + b2
    if layout == "tiled_hetero":
        return sum(a * s for s in HETERO_SIZES), sum(b * s for s in HETERO_SIZES)
    return 1, 1


def element_bytes(reg, row):
    return 1 if row["layout"] == "tiled_hetero" else int(reg.datatypes[row["datatype"]]["size"])


def is_plain(row):
    return (row.get("layout"), row.get("type_constructor"), row.get("packing")) in \
        ((None, None, None), ("contiguous", "basic", "datatype"))


def stride_problem(row):
    layout, a, a2, b, b2 = (row["layout"], row.get("unit"), row.get("unit2"), row.get("stride"),
                            row.get("stride2"))
    if layout in ("tiled", "block"):
        if b <= a:
            raise LayoutError("stride", f"stride {b} is not larger than unit {a} (layout {layout} needs "
                              f"B{'1' if layout == 'block' else ''} > A)")
        if layout == "block" and b2 <= a:
            raise LayoutError("stride2", f"stride2 {b2} is not larger than unit {a} (layout block needs B2 > A)")
    elif layout == "bucket":
        if b <= a or b <= a2:
            which, unit = ("", a) if b <= a else ("2", a2)
            raise LayoutError("stride", f"stride {b} is not larger than unit{which} {unit} (layout bucket needs "
                              "B > A1 and B > A2)")
    elif layout == "alternating":
        if b <= a:
            raise LayoutError("stride", f"stride {b} is not larger than unit {a} (layout alternating needs B1 > A1)")
        if b2 <= a2:
            raise LayoutError("stride2", f"stride2 {b2} is not larger than unit2 {a2} (layout alternating needs "
                              "B2 > A2)")
    elif layout == "tiled_hetero" and b < a:
        raise LayoutError("stride", f"stride {b} is smaller than unit {a} (layout tiled_hetero needs B >= A)")


def check(reg, row):
    """Raises LayoutError where the kernel would refuse ROW's layout (the
    checks that do not depend on the process count)."""
    if row.get("layout") is None:
        return
    layout, info = row["layout"], reg.layouts[row["layout"]]
    op = reg.operations[row["op"]]
    if row["topology"] == "graph" and not is_plain(row):
        column = "layout" if layout != "contiguous" else "type_constructor" \
            if row["type_constructor"] != "basic" else "packing"
        raise LayoutError(column, f"{column} {row[column]}: topology graph takes only layout contiguous, "
                          "type_constructor basic and packing datatype (its blocks carry the edges' counts)")
    if op["family"] == "node_aware" and not is_plain(row):
        column = "layout" if layout != "contiguous" else "type_constructor" \
            if row["type_constructor"] != "basic" else "packing"
        raise LayoutError(column, f"{column} {row[column]}: op {row['op']} takes only layout contiguous, "
                          "type_constructor basic and packing datatype (it forwards its blocks as bytes)")
    if row["type_constructor"] not in info["constructors"].split():
        raise LayoutError("type_constructor", f"type_constructor {row['type_constructor']} cannot describe layout "
                          f"{layout} (it takes: {info['constructors']})")
    if row["packing"] not in info["packings"].split():
        raise LayoutError("packing", f"packing {row['packing']} does not apply to layout {layout} "
                          f"(it takes: {info['packings']})")
    if layout == "halo" and row["packing"] == "manual_tiled" and row["ndim"] < 3:
        raise LayoutError("packing", f"packing manual_tiled on a {row['ndim']}-D halo is manual's copy (no face has "
                          "two levels of single elements to tile; 3-D: the faces across the fastest dimension): "
                          "use manual")
    if info["ops"] and row["op"] not in info["ops"].split():
        raise LayoutError("layout", f"layout {layout} does not apply to op {row['op']} (it needs one of: "
                          f"{info['ops']})")
    if info["topologies"] and op["family"] in ("neighbor", "p2p") and \
            row["topology"] not in info["topologies"].split():
        raise LayoutError("layout", f"layout {layout} needs topology {info['topologies']} for op {row['op']}, "
                          f"not {row['topology']}")
    if not is_static(layout):
        if layout == "halo" and (row["halo_n"] + 2) ** row["ndim"] > INT_MAX:
            raise LayoutError("halo_n", f"halo_n {row['halo_n']} on {row['ndim']} dimensions is "
                              f"{(row['halo_n'] + 2) ** row['ndim']} elements, more than an MPI count or "
                              "displacement (int) holds")
        return
    if layout == "tiled_hetero" and row["datatype"] != "byte":
        raise LayoutError("datatype", f"layout tiled_hetero mixes char, int, double and short: datatype must be "
                          f"byte, not {row['datatype']}")
    stride_problem(row)
    k, extent = pattern(row)
    element = element_bytes(reg, row)
    block = k * element
    msize = row["msize"]
    if msize == 0 or msize % block:
        unit = "bytes" if layout == "tiled_hetero" else "elements"
        raise LayoutError("msize", f"msize {msize} is not a multiple of the block's bytes (layout {layout}: {k} "
                          f"{unit} of {element} bytes, {block} bytes"
                          f"{'; a layout needs at least one block' if msize == 0 else ''})")
    blocks = msize // block
    if blocks * extent > INT_MAX:
        raise LayoutError("msize", f"msize {msize} in layout {layout} spans {blocks * extent} elements, more "
                          "than an MPI count or displacement (int) holds")


def deployment_problem(reg, row, nprocs):
    """Why the kernel would refuse ROW's layout on NPROCS processes, or None."""
    if row.get("layout") == "transpose":
        n = row["matrix_n"]
        if n % nprocs:
            return f"matrix_n {n} is not a multiple of the {nprocs} processes (each has n/p rows)"
        if n * (n // nprocs) > INT_MAX:
            return f"matrix_n {n} on {nprocs} processes is more elements than an MPI count (int) holds"
    return None


def displacement_problem(reg, row, degree, nprocs):
    """Why the int displacements of ROW's operation cannot hold its blocks'
    places on NPROCS processes (kernel/datatypes/geometry.c
    displacement_problem: MPI_Alltoallw's in bytes, the v variants' in
    elements), or None."""
    op = reg.operations[row["op"]]
    in_bytes = op["family"] == "global" and op["variant"] == "w"
    in_elements = op["family"] in ("global", "neighbor") and op["variant"] == "v"
    if row.get("graph") is not None or not (in_bytes or in_elements):
        return None
    msize = row["msize"] if row.get("layout") is None or not msize_derived(reg, row["layout"]) else \
        derived_msize(reg, row, nprocs)
    blocks = max(reg.blocks(row["op"], "send", degree, nprocs), reg.blocks(row["op"], "recv", degree, nprocs))
    packing = row.get("packing") or "datatype"
    if in_bytes and packing == "datatype" and row.get("layout") is not None and not is_plain(row):
        element = int(reg.datatypes[row["datatype"]]["size"])
        if row["layout"] == "transpose":
            step = row["matrix_n"] // nprocs * element
        elif row["layout"] == "halo":
            step = (row["halo_n"] + 2) ** row["ndim"] * element
        else:
            k, extent = pattern(row)
            step = msize // (k * element_bytes(reg, row)) * extent * element_bytes(reg, row)
    elif in_bytes or packing == "mpi_pack":
        step = msize
    else:
        step = msize // int(reg.datatypes[row["datatype"]]["size"])
    last = (blocks - 1) * step
    if last <= INT_MAX:
        return None
    return (f"{msize} bytes per neighbor put the last of {blocks} blocks {last} "
            f"{'bytes' if in_bytes else 'elements'} into the buffer, more than op {row['op']}'s int displacements "
            f"hold ({INT_MAX})")


def derived_msize(reg, row, nprocs):
    """The bytes per neighbor of a layout that derives them (halo, transpose)."""
    size = int(reg.datatypes[row["datatype"]]["size"])
    if row["layout"] == "halo":
        return row["halo_n"] ** (row["ndim"] - 1) * size
    b = row["matrix_n"] // nprocs
    return b * b * size


def buffer_bytes(reg, row, degree, nprocs, plain_bytes):
    """Bytes of buffers per process (kernel/datatypes/geometry.c
    layout_buffer_bytes: with a layout also the description check's
    CHECK_BLOCKS blocks); PLAIN_BYTES(msize) gives the contiguous ones."""
    if row.get("layout") is None or is_plain(row):
        return plain_bytes(row["msize"] or 0)
    layout = row["layout"]
    msize = row["msize"] if not msize_derived(reg, layout) else derived_msize(reg, row, nprocs)
    packed = 0 if row["packing"] == "datatype" else plain_bytes(msize)
    packed += CHECK_BLOCKS * msize
    element = int(reg.datatypes[row["datatype"]]["size"])
    if layout == "halo":
        return 2 * (row["halo_n"] + 2) ** row["ndim"] * element + packed
    if layout == "transpose":
        return 2 * row["matrix_n"] * (row["matrix_n"] // nprocs) * element + packed
    k, extent = pattern(row)
    return plain_bytes(msize // k * extent) + packed


def _value(expression, a, layout, variant, parameter):
    if not re.fullmatch(r"[A0-9+\-*/ ]+", expression):
        raise RuntimeError(f"registry/layouts.csv: {layout} variant{variant}: cannot read '{expression}'")
    value = eval(expression, {"__builtins__": {}}, {"A": a})  # digits, A and + - * / only
    if value != int(value) or value < 1:
        raise ValueError(f"variants: layout {layout} variant {variant} with A={a} gives {parameter}={value}, "
                         "not a positive integer (Variant 2 halves A: give even A)")
    return int(value)


def variant(layout, number, a):
    """The geometry of LAYOUT in the studies' Variant NUMBER (1 or 2) for unit
    size A: {parameter: value} (layouts.csv variant1, variant2)."""
    reg = registry.load()
    text = reg.layouts[layout].get(f"variant{number}", "")
    if not text:
        raise ValueError(f"variants: layout {layout} has no Variant {number} (layouts.csv)")
    pairs = [item.split("=", 1) for item in text.split()]
    return {name: _value(expression, a, layout, number, name) for name, expression in pairs}


def variants(layouts, numbers, units):
    """A design of every LAYOUT in every Variant of NUMBERS for every unit size
    A of UNITS: the layout and its geometry parameters (the studies' Table 2).
    Its values remember the campaign's line that called this."""
    line = sys._getframe(1).f_lineno
    parts = []
    for layout in layouts:
        for number in numbers:
            for a in units:
                parts.append(levels(layout=layout, **variant(layout, number, a)))
    design = union(*parts)
    for column in design.frame.columns:
        if column.endswith(LINE):
            design.frame[column] = design.frame[column].where(design.frame[column].isna(), line)
    return design


def block_bytes(reg, row):
    """Bytes of one block of a static layout ROW (msize must be a multiple)."""
    return pattern(row)[0] * element_bytes(reg, row)


def common_block_bytes(reg, rows):
    """The least common multiple of the blocks' bytes of ROWS: a message
    size every one of them can carry."""
    return math.lcm(*[block_bytes(reg, r) for r in rows])
