"""full-jupiter: the study's Table 2, row 3.

setups         Neigh_allgather, Neigh_alltoall, Allgather, Alltoall
neighborhood   Full via Dist_graph_create_adjacent
order          global collectives: LINEAR; neighborhood collectives: LINEAR, RAND
reorder        0, 1
msize          256 B * sqrt(2)^k, k = 0..14
"""
from gen.design import cross, levels, sqrt2_sizes, union

setups = union(
    levels(op=["neighbor_allgather", "neighbor_alltoall"], order=["LINEAR", "RAND"]),
    levels(op=["allgather", "alltoall"], order="LINEAR"),  # the study ran global ones LINEAR only
)

EXPERIMENTS = cross(
    setups,
    levels(topology="full", constructor="dist_graph_adjacent"),
    levels(reorder=[0, 1]),
    levels(msize=sqrt2_sizes(256, 15)),
)
