"""demo: the neighborhood collectives on a 2-D torus (3 neighborhoods), and
Allgather against Neighbor_allgather on Full, at three message sizes."""
from gen.design import cross, levels, union

neighborhoods = union(
    levels(topology="cart"),                                 # Cartesian has no order
    levels(topology="vneum", radius=1, constructor="dist_graph_adjacent",
           order=["FMAJ", "RAND"]),                          # the same neighbors as a graph
)

on_the_torus = cross(
    levels(op=["neighbor_allgather", "neighbor_alltoall"]),
    neighborhoods,
    levels(ndim=2, nfin=0),
)

on_full = levels(op=["allgather", "neighbor_allgather"], topology="full",
                 constructor="dist_graph_adjacent", order="LINEAR")

EXPERIMENTS = cross(union(on_the_torus, on_full), levels(msize=[64, 1024, 16384]))
