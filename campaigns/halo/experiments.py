"""halo: 2-D and 3-D halo exchanges with per-face datatypes."""
from gen.design import cross, levels, union

EXPERIMENTS = cross(
    levels(op=["neighbor_alltoallw", "p2p_alltoall"], topology="cart", datatype="double", layout="halo"),
    levels(ndim=[2, 3], halo_n=[8, 16, 32, 64, 128]),
    union(levels(type_constructor="subarray", packing=["datatype", "mpi_pack", "manual", "manual_tiled"]),
          levels(type_constructor=["vector", "indexed_block", "hindexed", "struct"])),
)
