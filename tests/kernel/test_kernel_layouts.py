"""Every layout x type constructor x packing (registry/layouts.csv), on the
operations that take it, under both libraries: --validate checks every
element at its place and every gap byte untouched, and preparation.csv says
that every description agrees with the layout's normal one and with the
geometry (size = msize, the studies' extents). One kernel launch per
library holds them all (a launch costs seconds, an experiment milliseconds).

Topologies without duplicate edges (finite grids at 2 processes, Full):
both libraries misroute some duplicate-edge cases (docs/kernel.md), which
is not what this test is about."""
import csv

from kernel_runner import ROOT

from gen.layouts import pattern

LAYOUTS = {row["name"]: row for row in csv.DictReader(open(ROOT / "registry" / "layouts.csv"))}
GEOMETRY = {"contiguous": {}, "tiled": dict(unit=3, stride=5), "block": dict(unit=2, stride=3, stride2=5),
            "bucket": dict(unit=1, unit2=3, stride=4), "alternating": dict(unit=2, unit2=3, stride=3, stride2=5),
            "tiled_hetero": dict(unit=2, stride=3)}
STATIC_OPS = ["neighbor_alltoall", "neighbor_allgatherv", "allgather", "alltoallw", "bcast", "pingpong",
              "p2p_alltoall", "ineighbor_alltoall", "neighbor_alltoall_init"]
NPROCS = 2
ELEMENT = {"byte": 1, "int": 4, "double": 8}


def experiments():
    rows = []

    def add(**row):
        rows.append(dict(row, id=len(rows) + 1, nrep=2))

    for layout, geometry in GEOMETRY.items():
        datatype = "byte" if layout == "tiled_hetero" else "int"
        k, _ = pattern(dict(layout=layout, **geometry))
        msize = 4 * k * ELEMENT[datatype]  # four blocks
        for constructor in LAYOUTS[layout]["constructors"].split():
            for packing in LAYOUTS[layout]["packings"].split():
                for op in STATIC_OPS:
                    add(op=op, topology="cart", ndim=1, nfin=1, datatype=datatype, msize=msize, layout=layout,
                        type_constructor=constructor, packing=packing, **geometry)
    for constructor in LAYOUTS["halo"]["constructors"].split():
        for packing in LAYOUTS["halo"]["packings"].split():
            for op in LAYOUTS["halo"]["ops"].split():
                for ndim in (1, 2, 3) if packing != "manual_tiled" else (3,):  # 1-, 2-D: manual's copy
                    add(op=op, topology="cart", ndim=ndim, nfin=ndim, datatype="double", layout="halo",
                        type_constructor=constructor, packing=packing, halo_n=3)
    for constructor in LAYOUTS["transpose"]["constructors"].split():
        for packing in LAYOUTS["transpose"]["packings"].split():
            for op in LAYOUTS["transpose"]["ops"].split():
                add(op=op, topology="full", datatype="double", layout="transpose", type_constructor=constructor,
                    packing=packing, matrix_n=6)
    return rows


def expected_size_and_extent(row):
    """msize, and the extent per neighbor of the first block's description
    (its count x MPI extent) from the layouts' formulas."""
    element = ELEMENT[row["datatype"]]
    if row["layout"] == "halo":
        return row["halo_n"] ** (row["ndim"] - 1) * element, None
    if row["layout"] == "transpose":
        b = row["matrix_n"] // NPROCS
        return b * b * element, b * element
    k, extent = pattern(row)
    if row["layout"] == "tiled_hetero":
        element = 1
    return row["msize"], row["msize"] // (k * element) * extent * element


def test_every_layout_description_and_packing_delivers_every_element(kernel, library):
    rows = experiments()
    run = kernel(library, NPROCS, rows, "--validate", timeout=600)
    assert run.returncode == 0, run.stderr
    findings = run.findings
    assert findings.empty, findings.head(20).to_string()
    assert len(run.results) == 2 * len(rows)
    preparation = run.table("preparation.csv").set_index("id")
    plain = {row["id"] for row in rows if (row["layout"], row["type_constructor"], row["packing"]) ==
             ("contiguous", "basic", "datatype")}
    persistent = {row["id"] for row in rows if row["op"].endswith("_init")}
    assert set(preparation.index) == {row["id"] for row in rows} - (plain - persistent), \
        "a preparation row for every experiment with a layout (not for contiguous data as before)"
    for row in rows:
        if row["id"] in plain:
            continue
        p = preparation.loc[row["id"]]
        assert p["type_check"] == "ok", (row, p["type_check"])
        size, extent = expected_size_and_extent(row)
        assert int(p["type_size"]) == size, row
        if extent is not None:
            assert int(p["type_extent"]) == extent, row
        assert p["commit_seconds"] == "" or float(p["commit_seconds"]) >= 0, row
        # the type constructors are timed apart from the commit (libraries differ in where they do the work)
        assert (p["construct_seconds"] == "") == (p["commit_seconds"] == ""), row
        assert p["construct_seconds"] == "" or float(p["construct_seconds"]) > 0, row
