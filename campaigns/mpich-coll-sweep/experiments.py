"""mpich-coll-sweep: the collectives each parameter set touches.

Full (Dist_graph_create_adjacent, LINEAR and RAND): Alltoall against the
blocking and nonblocking neighborhood alltoall and allgather; Moore radius 1
on a 2-D torus: the neighborhood collectives alone. msize 256 B .. 32 KiB in
powers of two.
"""
from gen.design import cross, levels, union

neighborhood = ["neighbor_alltoall", "ineighbor_alltoall", "neighbor_allgather", "ineighbor_allgather"]

EXPERIMENTS = cross(
    union(
        levels(op=["alltoall"] + neighborhood, topology="full", constructor="dist_graph_adjacent",
               order=["LINEAR", "RAND"]),
        levels(op=neighborhood, topology="moore", radius=1, constructor="dist_graph_adjacent",
               ndim=2, nfin=0, order="FMAJ"),
    ),
    levels(reorder=0),
    levels(msize=[256 * 2 ** k for k in range(8)]),
)
