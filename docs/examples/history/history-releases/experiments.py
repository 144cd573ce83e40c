"""history-releases: the neighborhood collectives on a line of two
processes, and the global collectives against their neighborhood forms on
Full, at three message sizes."""
from gen.design import cross, levels, union

on_the_line = cross(
    levels(op=["neighbor_allgather", "neighbor_alltoall", "neighbor_alltoallv", "neighbor_alltoallw"]),
    levels(topology="cart", ndim=1, nfin=1),
)

on_full = levels(op=["allgather", "neighbor_allgather", "alltoall", "neighbor_alltoall"], topology="full",
                 constructor="dist_graph_adjacent", order="LINEAR")

EXPERIMENTS = cross(union(on_the_line, on_full), levels(msize=[8, 1024, 65536]))
