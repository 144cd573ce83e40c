"""The buffers the kernel measures with, and what it packs (issue 26):
every buffer is written before anything is timed (a buffer only read would
map the kernel's shared zero page and every gather from it would hit the
cache); blocks that go to MPI_PROC_NULL alone are not packed (the library
skips them too); the description check's scratch counts against
--max-memory; manual_tiled on a halo whose faces it cannot tile is bad
input. (Int displacements that cannot hold a block's place are refused at
input too: tests/kernel/unit/test_layouts.c, without a run, as a kernel
that missed them would allocate gigabytes.)"""
import json
import re

import pandas as pd

from kernel_runner import BUILD

COLUMNS = ["id", "op", "topology", "constructor", "ndim", "nfin", "radius", "order", "reorder", "datatype",
           "msize", "nrep", "work_us", "seed"]
LAYOUT_COLUMNS = COLUMNS + ["layout", "type_constructor", "packing", "unit", "unit2", "stride", "stride2", "halo_n",
                            "matrix_n"]


def text(columns, *rows):
    return ",".join(columns) + "\n" + "".join(",".join(str(r.get(c, "")) for c in columns) + "\n" for r in rows)


def test_send_buffers_are_resident_before_they_are_read(kernel, library):
    # bcast of 96 MiB on 2 processes: rank 0 only reads its send block (and
    # its slot, from MPI_PROC_NULL, is never touched), rank 1 receives. With
    # every buffer written rank 0 holds both blocks, 192 MiB, and has the
    # larger resident set; left to the zero page it would hold nearly none.
    msize = 96 << 20
    run = kernel(library, 2, text(COLUMNS, dict(id=1, op="bcast", topology="cart", ndim=1, nfin=0, reorder=0,
                                                msize=msize, nrep=2, seed=1)), timeout=120)
    assert run.returncode == 0, run.stderr
    prov = json.loads(run.file("prov.json").read_text())
    assert prov["peak_rss_rank"] == 0, prov
    assert prov["peak_rss_kib"] >= 2 * msize // 1024, prov


def pack_calls(kernel, library, tmp_path, row, nrep):
    """MPI_Pack calls of each process in a run of ROW with NREP repetitions
    (the PMPI tool libnbh-counts.so)."""
    log = tmp_path / f"counts-{library}-{row['layout']}-{nrep}"
    tool = BUILD / library / "libnbh-counts.so"
    run = kernel(library, 2, text(LAYOUT_COLUMNS, dict(row, nrep=nrep)), "--validate", timeout=120,
                 launch_env=[("LD_PRELOAD", str(tool)), ("NBH_COUNTS_LOG", str(log))])
    assert run.returncode == 0, run.stderr
    assert not run.file("findings.csv").exists() or run.findings.empty
    calls = {}
    for path in tmp_path.glob(f"{log.name}.*"):
        lines = pd.read_csv(path, names=["call", "direction", "neighbor", "value"])
        calls[int(path.suffix[1:])] = int((lines["call"] == "MPI_Pack").sum())
    return calls


def test_blocks_to_proc_null_are_not_packed(kernel, library, tmp_path):
    # A finite 2-D grid of 2 x 1 processes: of a process's 4 faces one goes to
    # the other process, three to MPI_PROC_NULL. MPI_Pack per repetition
    # (the difference of two runs: what the preparation packs is the same):
    # one block, not four.
    halo = dict(id=1, op="neighbor_alltoallw", topology="cart", ndim=2, nfin=2, reorder=0, datatype="double",
                seed=1, layout="halo", type_constructor="subarray", packing="mpi_pack", halo_n=4)
    few, many = pack_calls(kernel, library, tmp_path, halo, 4), pack_calls(kernel, library, tmp_path, halo, 12)
    assert sorted(few) == sorted(many) == [0, 1]
    assert {rank: (many[rank] - few[rank]) / 8 for rank in few} == {0: 1, 1: 1}
    # a finite ring of 2: each process's block to its left goes to MPI_PROC_NULL
    ring = dict(id=1, op="neighbor_alltoall", topology="cart", ndim=1, nfin=1, reorder=0, datatype="int",
                msize=48, seed=1, layout="tiled", unit=3, stride=5, packing="mpi_pack")
    few, many = pack_calls(kernel, library, tmp_path, ring, 4), pack_calls(kernel, library, tmp_path, ring, 12)
    assert {rank: (many[rank] - few[rank]) / 8 for rank in few} == {0: 1, 1: 1}


def refused(run, column, message):
    assert run.returncode == 2, run.stderr
    lines = [line for line in run.stderr.splitlines() if line.startswith("nbh-kernel:")]
    assert len(lines) == 1, run.stderr
    path = re.escape(str(run.prefix.parent / "input.csv"))
    assert re.fullmatch(rf"nbh-kernel: {path}:2: column {column}: {message}", lines[0]), lines[0]
    assert not list(run.prefix.parent.glob("out.*")), "nothing may be written for bad input"


def test_the_description_check_counts_against_max_memory(kernel, library):
    # 2 neighbors, each 64000 bytes of ints in a tiled layout of extent 3 x
    # 64000: 768000 bytes of buffers, and the check packs three blocks of
    # 64000 before the repetitions: 960000 bytes in all
    row = dict(id=1, op="neighbor_alltoall", topology="cart", ndim=1, nfin=0, reorder=0, datatype="int",
               msize=64000, nrep=2, seed=1, layout="tiled", unit=2, stride=6)
    run = kernel(library, 2, text(LAYOUT_COLUMNS, row), "--max-memory", "900000", timeout=60)
    refused(run, "msize", r"64000 bytes per neighbor need 960000 bytes of buffers per process \(up to 2 "
                          r"neighbors\), over the limit of 900000 \(--max-memory\)")
    run = kernel(library, 2, text(LAYOUT_COLUMNS, row), "--max-memory", "960000", timeout=60)
    assert run.returncode == 0, run.stderr


def test_manual_tiled_on_a_2d_halo_is_refused(kernel, library):
    row = dict(id=1, op="neighbor_alltoallw", topology="cart", ndim=2, nfin=0, reorder=0, datatype="double",
               nrep=2, seed=1, layout="halo", type_constructor="subarray", packing="manual_tiled", halo_n=8)
    run = kernel(library, 2, text(LAYOUT_COLUMNS, row), timeout=60)
    refused(run, "packing", r"manual_tiled on a 2-D halo is manual's copy \(no face has two levels of single "
                            r"elements to tile; 3-D: the faces across the fastest dimension\): use manual")
