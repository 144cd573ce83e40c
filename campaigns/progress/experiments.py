"""progress: the five neighborhood collectives in their three forms
(neighbor_x blocking, ineighbor_x nonblocking, neighbor_x_init persistent)
with busy work of 0, 1 and 2 times the exchange, on three neighborhoods,
256 B to 1 MiB in powers of 4.

GL13  neighbor_x <= ineighbor_x                    work_factor 0
GL14  neighbor_x_init <= neighbor_x                work_factor 0
GL15  ineighbor_x, neighbor_x_init <= neighbor_x   the same work_factor 1, 2 (the blocking
                                                   operation followed by the same work)
GL16  ineighbor_x, neighbor_x_init with work <= max(the same without work; the measured work)
"""
from gen.design import cross, levels, operations, union

neighborhoods = union(
    levels(topology="cart", ndim=2, nfin=0),                                   # 4 neighbors
    levels(topology="moore", radius=1, ndim=2, nfin=0, constructor="dist_graph_adjacent",
           order="FMAJ"),                                                      # 8 neighbors
    levels(topology="full", constructor="dist_graph_adjacent", order="LINEAR"),  # p - 1 neighbors
)

EXPERIMENTS = cross(
    levels(op=operations(family="neighbor")),          # 5 collectives x blocking, nonblocking, persistent
    neighborhoods,
    levels(work_factor=[0, 1, 2]),
    levels(msize=[256 * 4 ** k for k in range(7)]),    # 256 B .. 1 MiB
)
