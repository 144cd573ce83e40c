"""full-rand-jupiter: the study's Table 2, row 4.

setups         Neigh_alltoall, Alltoall
neighborhood   Full via Dist_graph_create_adjacent, order RAND
reorder        0
msize          256 B * sqrt(2)^k, k = 0..14
"""
from gen.design import cross, levels, sqrt2_sizes

EXPERIMENTS = cross(
    levels(op=["neighbor_alltoall", "alltoall"]),
    levels(topology="full", constructor="dist_graph_adjacent", order="RAND"),
    levels(reorder=0),
    levels(msize=sqrt2_sizes(256, 15)),
)
