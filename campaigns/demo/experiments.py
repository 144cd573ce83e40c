"""demo: 2 operations x 3 neighborhoods x 3 message sizes on a 2-D torus."""
from gen.design import cross, levels, union

neighborhoods = union(
    levels(topology="cart"),                                 # Cartesian has no order
    levels(topology="vneum", radius=1, constructor="dist_graph_adjacent",
           order=["FMAJ", "RAND"]),                          # the same neighbors as a graph
)

EXPERIMENTS = cross(
    levels(op=["neighbor_allgather", "neighbor_alltoall"]),
    neighborhoods,
    levels(ndim=2, nfin=0),
    levels(msize=[64, 1024, 16384]),
)
