"""transpose: the distributed transpose of an n x n matrix of doubles."""
from gen.design import cross, levels, union

EXPERIMENTS = cross(
    union(levels(op="alltoall", topology="full"),
          levels(op="neighbor_alltoall", topology="full", order="LINEAR")),
    levels(datatype="double", layout="transpose", matrix_n=[256, 512, 1024, 2048, 4096]),
    union(levels(type_constructor="hvector", packing=["datatype", "mpi_pack", "manual", "manual_tiled"]),
          levels(type_constructor=["vector", "subarray"])),
)
