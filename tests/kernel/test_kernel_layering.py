"""The kernel's folders depend one way (STYLE.md: a folder per part): the
layouts (kernel/datatypes/) sit below the measurement setups
(kernel/setups/), which use them, and what both need -- the basic
datatype map, the buffer sizes, the written buffers -- lives below both in
kernel/data_buffers.c. No file of datatypes/ includes a setup's header,
and data_buffers includes neither folder (issue 26: the import circle
kernel/datatypes/* <-> kernel/setups/buffers.c)."""
import re

from kernel_runner import ROOT

KERNEL = ROOT / "kernel"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def includes(path):
    return INCLUDE.findall(path.read_text())


def test_the_layouts_do_not_include_the_setups():
    offenders = {str(path.relative_to(KERNEL)): [i for i in includes(path) if i.startswith("setups/")]
                 for path in sorted((KERNEL / "datatypes").glob("*.[ch]"))}
    assert not {path: found for path, found in offenders.items() if found}, offenders


def test_the_shared_pieces_live_below_both():
    for name in ("data_buffers.h", "data_buffers.c"):
        found = includes(KERNEL / name)
        assert not [i for i in found if i.startswith(("setups/", "datatypes/"))], (name, found)
    # the basic datatype map and the buffer sizes are defined once, there
    definitions = {}
    for path in sorted(KERNEL.rglob("*.c")):
        for name in ("datatype_mpi", "buffer_bytes"):
            if re.search(rf"^\w[\w\s\*]*\b{name}\(", path.read_text(), re.M):
                definitions.setdefault(name, []).append(str(path.relative_to(KERNEL)))
    assert definitions == {"datatype_mpi": ["data_buffers.c"], "buffer_bytes": ["data_buffers.c"]}, definitions
