"""openmpi-allgather-sweep: Allgather against Neighbor_allgather on Full.

setups         Neigh_allgather, Allgather
neighborhood   Full via Dist_graph_create_adjacent, LINEAR
msize          256 B * sqrt(2)^k, k = 0..14
"""
from gen.design import cross, levels, sqrt2_sizes

EXPERIMENTS = cross(
    levels(op=["neighbor_allgather", "allgather"]),
    levels(topology="full", constructor="dist_graph_adjacent", order="LINEAR"),
    levels(reorder=0),
    levels(msize=sqrt2_sizes(256, 15)),
)
