#!/usr/bin/env python3
"""Writes docs/registry.md: the registry tables as the reference users read.

usage: markdown.py [OUTPUT]   (default: docs/registry.md)
tests/registry checks that the committed file is what this writes.
"""
import csv
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent

SECTIONS = [
    ("operations", "Operations (the `op` parameter)",
     "Measurement setups of the kernel. `family`: neighbor, global (on the topology communicator), "
     "create (the constructor alone), p2p (hand-written Isend/Irecv/Waitall baselines), node_aware (the "
     "hand-written node-aware exchange: one message per node pair, docs/kernel.md). "
     "`blocking` 1: the operation, then the busy work; 0: start, busy work, wait. `persistent` 1: MPI-4 "
     "persistent (`_init` once per experiment, timed apart; each repetition MPI_Start, busy work, "
     "MPI_Wait); whether a library has them is found when the kernel is built (docs/kernel.md). "
     "`work_reference`: the operation whose time without work `work_factor` multiplies (the nonblocking "
     "form for all three forms of a neighborhood collective, so that they get the same work)."),
    ("topologies", "Topologies", "Neighborhoods; the first constructor and order are the defaults."),
    ("constructors", "Constructors", ""),
    ("orders", "Orders of the neighbor lists", ""),
    ("datatypes", "Datatypes", ""),
    ("layouts", "Layouts (the `layout` parameter)",
     "How the data of every block lies in memory (docs/datatypes.md). `parameters`: the geometry parameters "
     "it takes (in elements); `normal`: the studies' description, the reference of DT3 and the default "
     "`type_constructor`; `constructors`: the type constructors that can describe it; `packings`: who may "
     "pack it; `msize`: given, or derived from the geometry (leave msize empty); `ops` and `topologies`: "
     "where it applies (empty: every operation that moves data; the topologies constrain the neighborhood "
     "and p2p operations); `variant1`, `variant2`: the studies' Table 2 in the unit size A "
     "(`gen.layouts.variants`)."),
    ("type_constructors", "Type constructors (the `type_constructor` parameter)",
     "Every description of a layout has the same type map: the kernel checks size, extent and packed bytes "
     "before it measures (preparation.csv `type_check`)."),
    ("packings", "Packings (the `packing` parameter)", ""),
    ("arrivals", "Arrival patterns (the `arrival` parameter)",
     "After the common start of a repetition each process waits its delay (a busy wait on the clock, timed: "
     "`delay_seconds` in PREFIX.ranks.csv), then calls the operation; d is `arrival_us` "
     "(docs/kernel.md)."),
    ("syncs", "Starts (the `sync` parameter)",
     "How every repetition of an experiment starts. `clock` estimates each process's clock offset and drift "
     "to rank 0 by ping-pong before the experiment and records what the start cost and achieved in "
     "PREFIX.preparation.csv (docs/kernel.md)."),
    ("parameters", "Kernel input parameters",
     "The columns of the kernel's input file (docs/kernel.md), with the ranges the kernel accepts."),
    ("limits", "Bounds and limits",
     "Every number a user gives that is not a kernel input column (those have their ranges above): "
     "`min`..`max` inclusive, checked where the value enters (`given_in`), and the default where one "
     "applies. A value outside is refused with one line naming the file and line, the `--set` item or "
     "the option (docs/robustness.md)."),
    ("analysis", "Analysis defaults",
     "Read by `nbhbench analyze` (docs/analyze.md), by the looks of adaptive campaigns (docs/workflow.md) and "
     "by `nbhbench generate`, which warns when a campaign's nrun cannot reach the p threshold."),
    ("guidelines", "Guidelines", "`<=`: a must not be slower than b; `~`: a and b must perform alike. "
     "`v_thres`: the guideline's own ratio threshold where it has one (else `analyze --v-thres`, 1.03); "
     "an assessment set may set another (docs/assessment.md). Neigh_x: a blocking neighborhood "
     "collective, Ineigh_x its nonblocking form, Pneigh_x its persistent form."),
    ("tuning", "What `nbhbench tune` may set, per library and operation",
     "The candidates of a tune (docs/tuning.md): for a guideline whose first side is operation `op`, each "
     "value of each `parameter` listed for the library (`openmpi` rows serve Open MPI 5 and other Open MPI "
     "releases, `mpich` rows MPICH's) is one candidate parameter set, with what it `requires`. `values`: "
     "`mpi_t` takes the choices the installed library lists through MPI_T (Open MPI's MCA enumerators; "
     "MPICH names them in its CVAR descriptions), else the values given; `leave_out`: choices never raced, "
     "`VALUE=why`, `;`-separated; `note`: what the parameter does. `kind`: `algorithm` (a forced algorithm: an Open MPI winner also gets a coll tuned "
     "rules file) or `switch_point`."),
]


def table(name):
    with open(HERE / f"{name}.csv", newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |" for row in body]
    return "\n".join(lines)


def render():
    parts = ["# Registry", "",
             "Generated from `registry/*.csv` by `registry/markdown.py`; edit the CSV files, not this one. "
             "The kernel (through `registry/c_header.py`), the generator, the analyzer and these docs all "
             "read the same files.", ""]
    for name, title, text in SECTIONS:
        parts += [f"## {title}", ""] + ([text, ""] if text else []) + [table(name), ""]
    return "\n".join(parts)


if __name__ == "__main__":
    if len(sys.argv) > 2 or (len(sys.argv) == 2 and sys.argv[1].startswith("-")):
        sys.exit(__doc__.strip())
    output = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else HERE.parent / "docs" / "registry.md")
    output.write_text(render())
