"""The layout parameters at generate: the studies' Variant 1 and 2 from the
registry, the defaults the kernel fills in, the rules it applies (the same
reasons, naming the parameter), and the bytes a layout's buffers need."""
import pytest

from gen import layouts, registry, rules


def complete(**raw):
    return rules.complete(registry.load(), raw)


@pytest.mark.parametrize("layout, number, a, expected", [
    ("tiled", 1, 10, dict(unit=10, stride=12)),
    ("tiled", 2, 10, dict(unit=10, stride=30)),
    ("block", 1, 10, dict(unit=10, stride=11, stride2=13)),
    ("block", 2, 10, dict(unit=10, stride=20, stride2=40)),
    ("bucket", 1, 10, dict(unit=9, unit2=11, stride=12)),
    ("bucket", 2, 10, dict(unit=5, unit2=15, stride=30)),
    ("alternating", 1, 10, dict(unit=9, unit2=11, stride=11, stride2=13)),
    ("alternating", 2, 10, dict(unit=5, unit2=15, stride=20, stride2=40)),
])
def test_variants_are_the_studies_table_2(layout, number, a, expected):
    assert layouts.variant(layout, number, a) == expected


@pytest.mark.parametrize("number, span", [(1, lambda n, a: n + 2 * n // a), (2, lambda n, a: 3 * n)])
def test_every_layout_of_a_variant_spans_the_same_extent(number, span):
    """Table 2: all Variant 1 layouts span n + 2n/A elements, all Variant 2 ones 3n."""
    for a in (2, 10, 100):
        n = 2 * a * 30
        for layout in ("tiled", "block", "bucket", "alternating"):
            k, extent = layouts.pattern(dict(layout=layout, **layouts.variant(layout, number, a)))
            assert n % k == 0 and n // k * extent == span(n, a), (layout, a)


def test_variant_2_needs_an_even_unit():
    with pytest.raises(ValueError, match="bucket variant 2 with A=3 gives unit=1.5"):
        layouts.variant("bucket", 2, 3)


def test_variants_design_holds_every_layout_and_unit():
    design = layouts.variants(["tiled", "alternating"], [1, 2], [2, 10]).table
    assert len(design) == 8
    assert design.iloc[-1].to_dict() == dict(layout="alternating", unit=5, unit2=15, stride=20, stride2=40)


def test_layout_defaults_and_what_does_not_apply():
    row = complete(op="neighbor_alltoall", topology="cart", ndim=2, datatype="int", msize=240, layout="tiled",
                   unit=3, stride=5)
    assert (row["type_constructor"], row["packing"], row["unit2"], row["halo_n"]) == \
        ("contiguous_resized", "datatype", None, None)
    halo = complete(op="neighbor_alltoallw", topology="cart", ndim=3, datatype="double", layout="halo", halo_n=8)
    assert halo["msize"] is None and halo["type_constructor"] == "subarray"
    create = complete(op="create", topology="cart", ndim=2)
    assert create["layout"] is None and create["packing"] is None


@pytest.mark.parametrize("raw, parameter, message", [
    (dict(layout="tiled", unit=3, stride=3, msize=240), "stride",
     "stride 3 is not larger than unit 3 (layout tiled needs B > A)"),
    (dict(layout="block", unit=3, stride=4, stride2=3, msize=240), "stride2",
     "stride2 3 is not larger than unit 3 (layout block needs B2 > A)"),
    (dict(layout="bucket", unit=3, unit2=5, stride=5, msize=256), "stride", "stride 5 is not larger than unit2 5"),
    (dict(layout="tiled", unit=3, stride=5, msize=100), "msize",
     "msize 100 is not a multiple of the block's bytes (layout tiled: 3 elements of 4 bytes, 12 bytes)"),
    (dict(layout="block", unit=3, stride=4, stride2=5, msize=240, type_constructor="vector"), "type_constructor",
     "type_constructor vector cannot describe layout block (it takes: indexed_block indexed hindexed struct "
     "contiguous)"),
    (dict(layout="tiled", unit=3, stride=5, msize=240, packing="manual_tiled"), "packing",
     "packing manual_tiled does not apply to layout tiled"),
    (dict(layout="halo", halo_n=4), "layout", "layout halo does not apply to op neighbor_alltoall"),
    (dict(layout="tiled", stride=5, msize=240), "unit", "no unit given (required for layout tiled)"),
    (dict(layout="tiled", unit=3, stride=5, stride2=7, msize=240), "stride2",
     "stride2 does not apply to layout tiled"),
    (dict(layout="tiled_hetero", unit=3, stride=4, msize=180), "datatype",
     "layout tiled_hetero mixes char, int, double and short: datatype must be byte, not int"),
])
def test_layout_rules_name_the_parameter(raw, parameter, message):
    with pytest.raises(rules.RowError) as e:
        complete(op="neighbor_alltoall", topology="cart", ndim=2, datatype="int", **raw)
    assert e.value.parameter == parameter and message in str(e.value)


@pytest.mark.parametrize("raw, parameter, message", [
    (dict(op="neighbor_alltoallw", topology="full", layout="halo", halo_n=4), "layout",
     "layout halo needs topology cart for op neighbor_alltoallw, not full"),
    (dict(op="neighbor_alltoallw", topology="cart", ndim=2, layout="halo", halo_n=4, msize=64), "msize",
     "msize does not apply to layout halo"),
    (dict(op="create", topology="cart", ndim=2, packing="mpi_pack"), "packing", "packing does not apply to op create"),
    (dict(op="neighbor_alltoall", topology="graph", graph="stencil2d n=8", msize=8, packing="manual"), "packing",
     "topology graph takes only layout contiguous"),
    (dict(op="node_aware_alltoallv", topology="cart", ndim=2, msize=8, packing="mpi_pack"), "packing",
     "op node_aware_alltoallv takes only layout contiguous"),
    (dict(op="node_aware_alltoallv", topology="cart", ndim=2, msize=96, layout="tiled", unit=3, stride=5), "layout",
     "op node_aware_alltoallv takes only layout contiguous"),
])
def test_where_layouts_do_not_apply(raw, parameter, message):
    with pytest.raises(rules.RowError) as e:
        complete(datatype="int", **raw) if raw["op"] != "create" else complete(**raw)
    assert e.value.parameter == parameter and message in str(e.value)


def test_deployment_checks_of_the_transpose_and_the_buffers():
    reg = registry.load()
    row = complete(op="alltoall", topology="full", datatype="double", layout="transpose", matrix_n=6)
    assert rules.deployment_problem(reg, row, 3) is None
    assert rules.deployment_problem(reg, row, 4) == \
        "matrix_n 6 is not a multiple of the 4 processes (each has n/p rows)"
    big = complete(op="alltoall", topology="full", datatype="double", layout="transpose", matrix_n=16384)
    # the matrix's local rows twice (2 GiB) and the description check's three blocks of 512 MiB
    assert "layout transpose (matrix_n=16384) needs 3758096384 bytes of buffers per process" in \
        rules.deployment_problem(reg, big, 2)
    tiled = complete(op="neighbor_alltoall", topology="cart", ndim=1, datatype="int", msize=12 * 4, layout="tiled",
                     unit=3, stride=5, packing="mpi_pack")
    # 2 neighbors: 2 x 2 blocks of 4 x 5 ints, 2 x 2 packed copies of 48 bytes, and the description check's 3
    assert rules.buffer_bytes(reg, tiled, 2, 4) == 4 * 80 + 4 * 48 + 3 * 48


def test_manual_tiled_needs_a_3d_halo():
    # A 2-D halo's faces are a row and a column of single elements: the tiled
    # loops would copy them exactly as manual does, and a DT4 test against
    # manual_tiled would count the comparison with manual twice.
    for ndim in (1, 2):
        with pytest.raises(rules.RowError) as e:
            complete(op="neighbor_alltoallw", topology="cart", ndim=ndim, datatype="double", layout="halo",
                     halo_n=8, packing="manual_tiled")
        assert e.value.parameter == "packing" and \
            f"packing manual_tiled on a {ndim}-D halo is manual's copy" in str(e.value)
    row = complete(op="neighbor_alltoallw", topology="cart", ndim=3, datatype="double", layout="halo", halo_n=8,
                   packing="manual_tiled")
    assert row["packing"] == "manual_tiled"


def test_int_displacements_must_hold_every_block():
    # generate checks them as the kernel does (kernel/datatypes/geometry.c); under the default memory limit
    # a process's buffers cannot reach 2 GiB, with the kernel's --max-memory raised they can
    reg = registry.load()
    # MPI_Alltoallw's byte displacements: block 3 of 4 at 3 x 800000000 bytes
    big = complete(op="alltoallw", topology="full", datatype="byte", msize=800_000_000)
    assert layouts.displacement_problem(reg, big, 3, 4) == (
        "800000000 bytes per neighbor put the last of 4 blocks 2400000000 bytes into the buffer, more than op "
        "alltoallw's int displacements hold (2147483647)")
    assert layouts.displacement_problem(reg, big, 2, 3) is None, "block 2 of 3 at 1600000000 bytes: fits"
    # a tiled layout's extent: 3 x msize per neighbor (Variant 2)
    tiled = complete(op="alltoallw", topology="full", datatype="int", msize=400_000_000, layout="tiled", unit=2,
                     stride=6)
    assert "blocks 2400000000 bytes" in layouts.displacement_problem(reg, tiled, 2, 3)
    # the v variants count elements of their datatype; neighbor_alltoallw takes MPI_Aint bytes
    v = complete(op="neighbor_alltoallv", topology="cart", ndim=1, datatype="byte", msize=1_100_000_000)
    assert "put the last of 3 blocks 2200000000 elements" in layouts.displacement_problem(reg, v, 3, 4)
    w = complete(op="neighbor_alltoallw", topology="cart", ndim=1, datatype="byte", msize=1_100_000_000)
    assert layouts.displacement_problem(reg, w, 3, 4) is None
