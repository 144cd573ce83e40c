"""full-tuned-jupiter: the study's Table 2, row 5 (library parameter sets in campaign.conf).

setups         Neigh_alltoall, Alltoall
neighborhood   Full via Dist_graph_create_adjacent
order          LINEAR, RAND
reorder        0
msize          256 B * sqrt(2)^k, k = 0..14
"""
from gen.design import cross, levels, sqrt2_sizes

EXPERIMENTS = cross(
    levels(op=["neighbor_alltoall", "alltoall"]),
    levels(topology="full", constructor="dist_graph_adjacent", order=["LINEAR", "RAND"]),
    levels(reorder=0),
    levels(msize=sqrt2_sizes(256, 15)),
)
