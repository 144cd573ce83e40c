"""What an environment can run. Persistent neighborhood collectives depend
on the MPI library (MPI-4, or Open MPI's MPIX_ extension): `make` asks the
built kernel (`nbh-kernel --operations`) and writes the answer to
build/LIBRARY/operations.csv; generate leaves out the experiments whose
operation that kernel cannot run, says so on stderr and records it in
campaign.json (and so in the archive), never a silent gap."""
import csv

from gen import registry
from gen.errors import NbhError, display_path


def kernel_operations(build, library):
    """{operation: (available, note)} of build/LIBRARY/operations.csv, or None
    if the kernel was not built."""
    path = build / library / "operations.csv"
    if not path.is_file():
        return None
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    if not rows or not {"name", "available", "note"} <= set(rows[0]):
        raise NbhError(f"{display_path(path)}: not what nbh-kernel --operations writes; rebuild "
                       f"(nbhbench build)")
    return {row["name"]: (row["available"] == "1", row["note"]) for row in rows}


def library_dependent(reg):
    """The operations only some libraries have (registry operations.csv persistent = 1)."""
    return [name for name, row in reg.operations.items() if row["persistent"] == "1"]


def runnable(rows, env, build):
    """ROWS without the experiments env's kernel cannot run, and a record
    of what was left out ({} when nothing was): operations, how many
    experiments, why. Raises NbhError when the answer is unknown (the kernel is not
    built) or nothing would be left."""
    reg = registry.load()
    needed = sorted({row["op"] for row in rows} & set(library_dependent(reg)),
                    key=list(reg.operations).index)
    if not needed:
        return rows, {}
    known = kernel_operations(build, env.library)
    if known is None:
        raise NbhError(f"the campaign has operations that not every MPI library has ({', '.join(needed)}); "
                       f"build the kernel first so that generate knows whether {env.library} has them "
                       f"(nbhbench build --env {env.name})")
    missing = [op for op in needed if not known.get(op, (False, "unknown to this kernel build"))[0]]
    if not missing:
        return rows, {}
    kept = [row for row in rows if row["op"] not in missing]
    left = len(rows) - len(kept)
    why = known.get(missing[0], (False, "unknown to this kernel build; rebuild it"))[1]
    if not kept:
        raise NbhError(f"environment {env.name} ({env.library}) can run none of the campaign's experiments: "
                       f"{why}")
    return kept, {"operations": missing, "experiments": left, "reason": why}
