"""The registry is consistent, and the docs say what it says."""
import csv
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = ROOT / "registry"


def rows(name):
    return list(csv.DictReader(open(REGISTRY / f"{name}.csv", newline="")))


def names(name):
    return [r["name"] if "name" in r else r["id"] for r in rows(name)]


def test_docs_registry_is_generated_from_the_csv_files():
    spec = importlib.util.spec_from_file_location("markdown", REGISTRY / "markdown.py")
    markdown = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(markdown)
    assert (ROOT / "docs" / "registry.md").read_text() == markdown.render(), \
        "docs/registry.md is stale: run python3 registry/markdown.py"


def test_names_are_unique():
    for table in ["operations", "topologies", "constructors", "orders", "datatypes", "parameters", "guidelines",
                  "layouts", "type_constructors", "packings"]:
        assert len(names(table)) == len(set(names(table))), table


def test_layouts_name_known_constructors_packings_parameters_and_ops():
    """registry/layouts.csv: the normal constructor first among those that
    describe the layout; every constructor and packing serves a layout."""
    parameters = {r["name"]: r for r in rows("parameters")}
    used_constructors, used_packings = set(), set()
    for layout in rows("layouts"):
        constructors = layout["constructors"].split()
        assert constructors[0] == layout["normal"], layout["name"]
        assert set(layout["packings"].split()) <= set(names("packings")), layout["name"]
        assert set(layout["ops"].split()) <= set(names("operations")), layout["name"]
        assert set(layout["topologies"].split()) <= set(names("topologies")), layout["name"]
        assert layout["msize"] in ("given", "derived"), layout["name"]
        for p in layout["parameters"].split():
            assert parameters[p]["applies_to"] == "layouts that use it", p
        used_constructors |= set(constructors)
        used_packings |= set(layout["packings"].split())
    assert used_constructors == set(names("type_constructors"))
    assert used_packings == set(names("packings"))


def test_topologies_name_known_constructors_and_orders():
    for t in rows("topologies"):
        assert set(t["constructors"].split()) <= set(names("constructors")), t["name"]
        assert set(t["orders"].split()) <= set(names("orders")), t["name"]


def test_every_order_and_constructor_serves_a_topology():
    used_orders = {o for t in rows("topologies") for o in t["orders"].split()}
    used_constructors = {c for t in rows("topologies") for c in t["constructors"].split()}
    assert used_orders == set(names("orders"))
    assert used_constructors == set(names("constructors"))


def test_nonblocking_and_persistent_operations_have_a_blocking_twin():
    ops = {r["name"]: r for r in rows("operations")}
    for name, r in ops.items():
        if r["persistent"] == "1":
            assert r["blocking"] == "0" and name.endswith("_init") and ops[name[:-5]]["blocking"] == "1", name
        elif r["blocking"] == "0":
            assert name.startswith("i") and ops[name[1:]]["blocking"] == "1", name


def test_work_reference_is_the_nonblocking_form_of_each_neighborhood_collective():
    """work_factor gives the blocking, nonblocking and persistent forms of
    one exchange the same work (GL15 compares them with the same w)."""
    ops = {r["name"]: r for r in rows("operations")}
    for name, r in ops.items():
        reference = ops[r["work_reference"]]
        if r["family"] == "neighbor":
            assert reference["blocking"] == "0" and reference["persistent"] == "0", name
            assert (reference["pattern"], reference["variant"]) == (r["pattern"], r["variant"]), name
        else:
            assert r["work_reference"] == name


def test_guidelines_cover_gl1_to_gl16_p2p_dt1_to_dt4_ar1_ar2_la_and_aa():
    assert names("guidelines") == [f"GL{i}" for i in range(1, 17)] + ["P2P"] + [f"DT{i}" for i in range(1, 5)] + \
        ["AR1", "AR2", "LA", "AA"]
    assert {r["relation"] for r in rows("guidelines")} == {"<=", "~"}
    thresholds = {r["id"]: r["v_thres"] for r in rows("guidelines") if r["v_thres"]}
    assert thresholds == {"GL16": "1.10", "AR1": "1.10"}, \
        "GL16 and AR1, whose right sides are computed per run, have their own ratio threshold (SPEC 7.1, 8.2)"
