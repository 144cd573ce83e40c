"""nbhcoll: the study's Table 2, rows nbhcoll-jupiter and nbhcoll-vsc3.

setups         Neigh_allgather, Neigh_alltoall
neighborhoods  Cartesian; von Neumann and Moore r=1 via Dist_graph_create_adjacent
ndim / nfin    1-4 / {0, ndim}
order          FMAJ, LMAJ, RAND (not Cartesian)
reorder        0, 1
msize          256 B * sqrt(2)^k, k = 0..14
"""
from gen.design import cross, levels, sqrt2_sizes, union

grids = levels(ndim=[1, 2, 3, 4], nfin=lambda ndim: {0, ndim})  # for every ndim, nfin in {0, ndim}

neighborhoods = union(
    levels(topology="cart"),                                      # Cartesian has no order
    levels(topology=["vneum", "moore"], radius=1, constructor="dist_graph_adjacent",
           order=["FMAJ", "LMAJ", "RAND"]),
)

EXPERIMENTS = cross(
    levels(op=["neighbor_allgather", "neighbor_alltoall"]),
    neighborhoods,
    grids,
    levels(reorder=[0, 1]),
    levels(msize=sqrt2_sizes(256, 15)),
)
