"""openmpi-alltoall-sweep: Alltoall against Neighbor_alltoall on Full (the
study's full-tuned-jupiter experiments), under every parameter set.

setups         Neigh_alltoall, Alltoall
neighborhood   Full via Dist_graph_create_adjacent
order          LINEAR, RAND
msize          256 B * sqrt(2)^k, k = 0..14
"""
from gen.design import campaign_design

EXPERIMENTS = campaign_design("full-tuned-jupiter")
