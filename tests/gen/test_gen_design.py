"""The design language of campaign files (gen/design.py)."""
import pytest

from gen.design import DesignError, campaign_design, cross, levels, operations, sqrt2_sizes, union, where


def rows(design):
    return design.table.to_dict("records")


def test_levels_cross_in_the_order_written():
    design = levels(op=["neighbor_allgather", "neighbor_alltoall"], reorder=[0, 1])
    assert [(r["op"], r["reorder"]) for r in rows(design)] == [
        ("neighbor_allgather", 0), ("neighbor_allgather", 1),
        ("neighbor_alltoall", 0), ("neighbor_alltoall", 1)]


def test_relation_for_every_ndim_nfin_in_0_and_ndim():
    design = levels(ndim=[1, 2, 3, 4], nfin=lambda ndim: {0, ndim})
    assert [(r["ndim"], r["nfin"]) for r in rows(design)] == [
        (1, 0), (1, 1), (2, 0), (2, 2), (3, 0), (3, 3), (4, 0), (4, 4)]


def test_relation_levels_are_distinct():
    design = levels(ndim=[1, 2], nfin=lambda ndim: [0, ndim, ndim])
    assert len(design) == 4


def test_relation_needs_parameters_given_before_it():
    with pytest.raises(DesignError, match="needs ndim"):
        levels(nfin=lambda ndim: [0, ndim])


def test_union_leaves_what_a_part_does_not_give_empty():
    design = union(levels(topology="cart"), levels(topology="vneum", order=["FMAJ", "RAND"]))
    assert [(r["topology"], r["order"]) for r in rows(design)] == [
        ("cart", None), ("vneum", "FMAJ"), ("vneum", "RAND")]


def test_cross_multiplies_and_refuses_a_parameter_twice():
    assert len(cross(levels(op=["a", "b"]), levels(msize=[1, 2, 3]))) == 6
    with pytest.raises(DesignError, match="parameter op is given by two"):
        cross(levels(op="neighbor_alltoall"), levels(op="alltoall"))


def test_where_keeps_rows_the_predicate_accepts():
    design = where(levels(ndim=[1, 2, 3], radius=[1, 2]), lambda ndim, radius: radius <= ndim - 1)
    assert [(r["ndim"], r["radius"]) for r in rows(design)] == [(2, 1), (3, 1), (3, 2)]


def test_unknown_parameter_and_settings_are_refused():
    with pytest.raises(DesignError, match="unknown parameter 'msise'"):
        levels(msise=1)
    with pytest.raises(DesignError, match="nrep is a campaign setting"):
        levels(nrep=5)


def test_literal_levels_given_twice_are_a_mistake():
    with pytest.raises(DesignError, match="level 256 given twice"):
        levels(msize=[256, 256])


def test_each_value_remembers_its_line():
    design = levels(op="create")
    assert design.records()[0]["op@line"] > 0


def test_sqrt2_sizes_are_the_studys_fifteen_sizes():
    sizes = sqrt2_sizes(256, 15)
    assert sizes[:4] == [256, 362, 512, 724] and sizes[-1] == 32768 and len(sizes) == 15
    assert sizes[13] == 23170  # 256 * 2^6.5 = 23170.475, rounded down


def test_operations_come_from_the_registry():
    assert operations(family="global", variant="") == ["allgather", "alltoall", "bcast"]
    assert operations(family="global", pattern=["allgather", "alltoall"], variant="") == ["allgather", "alltoall"]
    assert "ineighbor_alltoallw" in operations(family="neighbor", blocking=0)
    with pytest.raises(DesignError, match="no column"):
        operations(colour="red")


def test_campaign_design_reuses_a_shipped_campaign():
    assert len(campaign_design("nbhcoll-jupiter")) == 3360
