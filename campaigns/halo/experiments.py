"""halo: 2-D and 3-D halo exchanges with per-face datatypes."""
from gen.design import cross, levels, union

# manual_tiled only in 3-D: a 2-D halo's faces are a row and a column of
# single elements, which the tiled loops copy exactly as the plain ones do
# (a DT4 test against them would count the manual comparison twice).
EXPERIMENTS = cross(
    levels(op=["neighbor_alltoallw", "p2p_alltoall"], topology="cart", datatype="double", layout="halo",
           halo_n=[8, 16, 32, 64, 128]),
    union(cross(levels(ndim=[2, 3]),
                union(levels(type_constructor="subarray", packing=["datatype", "mpi_pack", "manual"]),
                      levels(type_constructor=["vector", "indexed_block", "hindexed", "struct"]))),
          levels(ndim=3, type_constructor="subarray", packing="manual_tiled")),
)
