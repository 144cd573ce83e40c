"""datatypes: the datatype studies' layouts (Table 2 of the conference
version; Expectation tests 1 and 3-9) as guideline experiments."""
from gen.design import cross, levels, union
from gen.layouts import variants

UNITS = [2, 10, 100]            # A (the studies: also 1000, 1024 and 10000)
SIZES = [3200, 64000, 2560000]  # bytes per neighbor (the studies: 3200 and 2.56 MB); each a multiple of every block (2A elements) of both types
STATIC = ["tiled", "block", "bucket", "alternating"]

operations = levels(op=["pingpong", "bcast", "allgather", "neighbor_alltoall"],
                    topology="cart", ndim=2, nfin=0)                # neighbor_alltoall on a 2-D torus
data = levels(datatype=["int", "double"], msize=SIZES)
layouts = variants(STATIC, [1, 2], UNITS)

# The layouts against contiguous data, DT2 and DT4: each layout (and
# contiguous data) packed by the library, by MPI_Pack and by hand.
packed = cross(union(layouts, levels(layout="contiguous")), levels(packing=["datatype", "mpi_pack", "manual"]))

# DT1: c elements of t against one contiguous type of the c elements.
contiguous_types = union(levels(layout="contiguous", type_constructor="contiguous"),
                         cross(layouts, levels(type_constructor="contiguous")))

# DT3: the layouts' other descriptions (Variant 1, as the studies' tests).
descriptions = union(
    cross(variants(["tiled"], [1], UNITS),
          levels(type_constructor=["vector", "hvector", "indexed_block", "indexed", "hindexed", "struct",
                                   "subarray", "nested"])),
    cross(variants(["block"], [1], UNITS), levels(type_constructor=["indexed", "hindexed", "struct"])),
    cross(variants(["bucket", "alternating"], [1], UNITS), levels(type_constructor=["hindexed", "struct"])),
)

EXPERIMENTS = cross(operations, data, union(packed, contiguous_types, descriptions))
