"""What an environment's kernel can run (gen/availability.py): experiments
of operations it lacks are left out and recorded, never silently."""
import pytest

from gen import availability, rules
from gen.envfile import read_environment
from gen.errors import NbhError
from gen.registry import load

REG = load()


def rows(*ops):
    return [dict(id=i + 1, **rules.complete(REG, dict(op=op, topology="cart", ndim=2, msize=64)))
            for i, op in enumerate(ops)]


def kernel_build(tmp_path, unavailable=()):
    """build/openmpi/operations.csv as `nbh-kernel --operations` writes it."""
    folder = tmp_path / "openmpi"
    folder.mkdir()
    note = '"no persistent collectives (MPI 3.1)"'
    lines = ["name,available,note"] + [f"{op},0,{note}" if op in unavailable else f"{op},1," for op in REG.operations]
    (folder / "operations.csv").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_nothing_library_dependent_needs_no_kernel(tmp_path):
    given = rows("neighbor_alltoall", "ineighbor_alltoall")
    kept, left = availability.runnable(given, read_environment("local-openmpi"), tmp_path / "none")
    assert kept == given and left == {}


def test_operations_the_kernel_lacks_are_left_out_and_recorded(tmp_path):
    build = kernel_build(tmp_path, unavailable={"neighbor_alltoall_init"})
    given = rows("neighbor_alltoall", "neighbor_alltoall_init", "ineighbor_alltoall", "neighbor_alltoall_init")
    kept, left = availability.runnable(given, read_environment("local-openmpi"), build)
    assert [r["op"] for r in kept] == ["neighbor_alltoall", "ineighbor_alltoall"]
    assert [r["id"] for r in kept] == [1, 3], "ids stay those of the full design"
    assert left == {"operations": ["neighbor_alltoall_init"], "experiments": 2,
                    "reason": "no persistent collectives (MPI 3.1)"}


def test_a_kernel_that_has_them_keeps_everything(tmp_path):
    given = rows("neighbor_alltoall_init")
    assert availability.runnable(given, read_environment("local-openmpi"), kernel_build(tmp_path)) == (given, {})


def test_without_a_built_kernel_or_with_nothing_left_it_says_why(tmp_path):
    with pytest.raises(NbhError, match=r"build the kernel first .* \(nbhbench build --env local-openmpi\)"):
        availability.runnable(rows("neighbor_alltoall_init"), read_environment("local-openmpi"), tmp_path)
    build = kernel_build(tmp_path, unavailable={"neighbor_alltoall_init"})
    with pytest.raises(NbhError, match="can run none of the campaign's experiments: no persistent collectives"):
        availability.runnable(rows("neighbor_alltoall_init"), read_environment("local-openmpi"), build)
