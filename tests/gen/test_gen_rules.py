"""The kernel's input rules as the generator applies them (gen/rules.py)."""
import pytest

from gen import closest_name, registry, rules

REG = registry.load()


def complete(**raw):
    return rules.complete(REG, raw)


def test_defaults_are_written_explicitly_and_inapplicable_ones_empty():
    row = complete(op="neighbor_alltoall", topology="vneum", ndim=2, msize=1024)
    assert row == {"op": "neighbor_alltoall", "topology": "vneum", "constructor": "dist_graph_adjacent",
                   "ndim": 2, "nfin": 0, "radius": 1, "order": "FMAJ", "reorder": 0,
                   "datatype": "byte", "msize": 1024, "work_us": 0, "work_factor": 0,
                   "graph": None, "weights": None, "layout": "contiguous", "type_constructor": "basic",
                   "packing": "datatype", "unit": None, "unit2": None, "stride": None, "stride2": None,
                   "halo_n": None, "matrix_n": None, "arrival": "none", "arrival_us": None, "late_rank": None,
                   "sync": "barrier"}
    cart = complete(op="create", topology="cart", ndim=3)
    assert cart["order"] is None and cart["radius"] is None and cart["msize"] is None
    assert cart["constructor"] == "cart_create"
    full = complete(op="alltoall", topology="full", msize=8, datatype="double")
    assert full["ndim"] is None and full["order"] == "LINEAR"


@pytest.mark.parametrize("raw, parameter, message", [
    ({"op": "neighbor_alltoall", "topology": "cart", "ndim": 2, "msize": 8, "order": "FMAJ"},
     "order", "order does not apply to topology cart"),
    ({"op": "create", "topology": "cart", "ndim": 2, "msize": 8}, "msize", "msize does not apply to op create"),
    ({"op": "neighbor_alltoall", "topology": "full", "order": "FMAJ", "msize": 8},
     "order", "FMAJ does not apply to topology full"),
    ({"op": "neighbor_alltoall", "topology": "cart", "constructor": "dist_graph", "ndim": 1, "msize": 8},
     "constructor", "dist_graph does not apply to topology cart"),
    ({"op": "neighbour_alltoall", "topology": "cart"}, "op", "unknown op 'neighbour_alltoall'"),
    ({"op": "neighbor_alltoall", "topology": "cart", "ndim": 2, "msize": 6, "datatype": "int"},
     "msize", "6 is not a multiple of the int size"),
    ({"op": "neighbor_alltoall", "topology": "cart", "ndim": 9, "msize": 8}, "ndim", "outside 1..8"),
    ({"op": "neighbor_alltoall", "topology": "cart", "ndim": 2, "nfin": 3, "msize": 8}, "nfin", "outside 0..ndim"),
    ({"op": "neighbor_alltoall", "topology": "cart", "msize": 8}, "ndim", "no ndim given"),
    ({"op": "neighbor_alltoall", "topology": "cart", "ndim": 1}, "msize", "no msize given"),
    ({"op": "neighbor_alltoall", "topology": "cart", "ndim": 1, "msize": "big"}, "msize", "'big' is not an integer"),
    ({"op": "neighbor_alltoall", "topology": "cart", "ndim": 1, "msize": 8, "reorder": 2}, "reorder", "outside 0..1"),
    ({"op": "ineighbor_alltoall", "topology": "cart", "ndim": 1, "msize": 8, "work_factor": -1},
     "work_factor", "'-1' is not a number >= 0"),
    ({"op": "ineighbor_alltoall", "topology": "cart", "ndim": 1, "msize": 8, "work_factor": 2000},
     "work_factor", "2000 is outside 0..1000"),
    ({"op": "ineighbor_alltoall", "topology": "cart", "ndim": 1, "msize": 8, "work_factor": 1, "work_us": 5},
     "work_factor", "work_factor 1 given with work_us 5: give the busy work in microseconds or as a factor"),
    ({"op": "create", "topology": "cart", "ndim": 1, "work_factor": 1}, "work_factor",
     "work_factor does not apply to op create"),
    ({"op": "bcast", "topology": "cart", "ndim": 1, "msize": 8, "arrival_us": 50}, "arrival_us",
     "arrival_us does not apply to arrival none"),
    ({"op": "bcast", "topology": "cart", "ndim": 1, "msize": 8, "arrival": "uniform"}, "arrival_us",
     "no arrival_us given \\(required for arrival uniform\\)"),
    ({"op": "bcast", "topology": "cart", "ndim": 1, "msize": 8, "arrival": "ramp", "arrival_us": 5, "late_rank": 1},
     "late_rank", "late_rank does not apply to arrival ramp"),
    ({"op": "bcast", "topology": "cart", "ndim": 1, "msize": 8, "arrival": "late", "arrival_us": 5}, "arrival",
     "unknown arrival 'late' \\(known: none, uniform, one_late, ramp\\)"),
    ({"op": "bcast", "topology": "cart", "ndim": 1, "msize": 8, "arrival": "uniform", "arrival_us": 2e6},
     "arrival_us", "outside 0..1000000"),
    ({"op": "create", "topology": "cart", "ndim": 1, "sync": "clock"}, "sync",
     "sync=clock: op create cannot run in windows of a global clock"),
    ({"op": "create", "topology": "cart", "ndim": 1, "arrival": "uniform"}, "arrival",
     "arrival does not apply to op create"),
])
def test_what_the_kernel_refuses_is_refused(raw, parameter, message):
    with pytest.raises(rules.RowError, match=message) as error:
        rules.complete(REG, raw)
    assert error.value.parameter == parameter


def test_applicability_follows_the_registry():
    for parameter in REG.design_parameters:
        where = REG.parameters[parameter]["applies_to"]
        if where == "grid topologies":
            assert rules.applies(REG, parameter, "create", "cart")
            assert not rules.applies(REG, parameter, "create", "full")
        if where == "operations that move data":
            assert not rules.applies(REG, parameter, "create", "cart")


def test_arrival_defaults_and_late_rank():
    late = complete(op="neighbor_alltoall", topology="cart", ndim=1, msize=8, arrival="one_late", arrival_us=50)
    assert (late["arrival_us"], late["late_rank"], late["sync"]) == (50, None, "barrier"), \
        "late_rank's default p/2 is the run's: the cell stays empty"
    assert "late_rank 4 is not a process: the run has 4 (ranks 0..3)" == rules.deployment_problem(
        REG, dict(late, late_rank=4), 4)
    assert rules.deployment_problem(REG, dict(late, late_rank=3), 4) is None
    assert complete(op="create", topology="cart", ndim=1)["sync"] is None


def test_deployment_problems():
    vneum = complete(op="create", topology="vneum", ndim=2, nfin=2)
    assert "impossible on 1 process" in rules.deployment_problem(REG, vneum, 1)
    assert rules.deployment_problem(REG, vneum, 4) is None
    big = complete(op="alltoall", topology="full", msize=1 << 20)
    assert "over the kernel's" in rules.deployment_problem(REG, big, 1024)
    assert rules.max_degree(complete(op="create", topology="moore", ndim=3), 8) == 26
    assert rules.max_degree(complete(op="create", topology="vneum", ndim=3, radius=2), 8) == 24


# The same words as the kernel's (tests/kernel/unit/test_closest_name.c).
N_OPS = len(REG.operations)


@pytest.mark.parametrize("raw, parameter, message", [
    ({"op": "neighbor_altoall", "topology": "cart"}, "op",
     f"unknown op 'neighbor_altoall' (did you mean neighbor_alltoall? all {N_OPS}: nbhbench list op)"),
    ({"op": "ineighbour_allgatherv", "topology": "cart"}, "op",
     f"unknown op 'ineighbour_allgatherv' (did you mean ineighbor_allgatherv? all {N_OPS}: nbhbench list op)"),
    ({"op": "frobnicate", "topology": "cart"}, "op", f"unknown op 'frobnicate' (all {N_OPS}: nbhbench list op)"),
    ({"op": "neighbor_alltoall", "topology": "mooore"}, "topology",
     "unknown topology 'mooore' (did you mean moore? known: cart, moore, vneum, full, graph)"),
    ({"op": "neighbor_alltoall", "topology": "moore", "ndim": 2, "msize": 8, "constructor": "dist_grap"},
     "constructor", "unknown constructor 'dist_grap' (did you mean dist_graph? known: dist_graph_adjacent, dist_graph)"),
    ({"op": "neighbor_alltoall", "topology": "moore", "ndim": 2, "msize": 8, "order": "rand"},
     "order", "unknown order 'rand' (did you mean RAND? known: FMAJ, LMAJ, RAND)"),
    ({"op": "neighbor_alltoall", "topology": "full", "msize": 8, "order": "LINAER"},
     "order", "unknown order 'LINAER' (did you mean LINEAR? known: LINEAR, RAND)"),
    ({"op": "neighbor_alltoall", "topology": "cart", "ndim": 2, "msize": 8, "datatype": "doubel"},
     "datatype", "unknown datatype 'doubel' (did you mean double? known: byte, int, double)"),
])
def test_an_unknown_name_says_the_closest_known_one(raw, parameter, message):
    with pytest.raises(rules.RowError) as error:
        rules.complete(REG, raw)
    assert (error.value.parameter, str(error.value)) == (parameter, message)
    assert not error.value.about_row  # wrong in any experiment: the line needs no more


def test_the_closest_name_is_by_edits_case_ignored_and_only_when_close():
    assert closest_name.edit_distance("kitten", "sitting") == 3
    assert closest_name.edit_distance("rand", "RAND") == 0 and closest_name.edit_distance("", "abc") == 3
    # A swap of neighbours is one edit (the kernel's the same: tests/kernel/unit/test_closest_name.c).
    assert [closest_name.edit_distance(a, b) for a, b in (("lsit", "list"), ("dmeo", "demo"), ("ab", "ba"),
                                                          ("ca", "abc"))] == [1, 1, 1, 3]
    assert closest_name.closest("dmeo", ["demo", "halo"]) == "demo"
    assert closest_name.closest("alltoal", REG.operations) == "alltoall"
    assert closest_name.closest("ab", ["abc"]) is None  # one edit in two letters is no typo
    assert closest_name.closest("neighbor", REG.operations) is None
