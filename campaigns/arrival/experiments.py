"""arrival: MPI_Bcast under uniform arrival delays (the arrival study's
benchmark), and the neighborhood exchange in its blocking, nonblocking,
persistent and hand-written forms under one late process and uniform
delays, each with both starts (barrier, clock) and without delay.

AR1  X with an arrival pattern of maximum delay d <= X without delay + d
AR2  with one late process, the processes that are neither its source nor
     its destination complete as without delay (less than d/2 later)
P2P  neighbor_alltoall <= p2p_alltoall, under every pattern
"""
from gen.design import cross, levels, union

# The study: every process waits rand() % max before MPI_Bcast, max from 0 up.
study = cross(
    levels(op="bcast", topology="cart", ndim=1, nfin=0),
    union(levels(arrival="none"),
          levels(arrival="uniform", arrival_us=[100, 1000, 10000])),
    levels(msize=[64, 4096, 65536]),
)

neighborhoods = union(
    levels(topology="cart", ndim=[1, 2], nfin=0),                                    # ring, torus
    levels(topology="moore", radius=1, ndim=2, nfin=0, constructor="dist_graph_adjacent", order="FMAJ"),
    levels(topology="full", constructor="dist_graph_adjacent", order="LINEAR"),
)

# One late process: d well above what a loaded node's scheduler does to the
# others (milliseconds), so that AR2 can tell waiting for it from noise.
exchanges = cross(
    levels(op=["neighbor_alltoall", "ineighbor_alltoall", "neighbor_alltoall_init", "p2p_alltoall"]),
    neighborhoods,
    union(levels(arrival="none"),
          levels(arrival="one_late", arrival_us=5000),
          levels(arrival="uniform", arrival_us=1000)),
    levels(msize=[64, 4096]),
)

EXPERIMENTS = cross(union(study, exchanges), levels(sync=["barrier", "clock"]))
