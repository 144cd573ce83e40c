"""progress-shim: the nonblocking alltoall of 1 MiB per neighbor with busy
work 0, 1 and 2 times the exchange (GL16, overlap); the persistent and the
blocking alltoall of 1 KiB without work (GL14)."""
from gen.design import cross, levels, union

EXPERIMENTS = cross(
    levels(topology="cart", ndim=1, nfin=0),
    union(
        levels(op="ineighbor_alltoall", work_factor=[0, 1, 2], msize=1 << 20),
        levels(op=["neighbor_alltoall_init", "neighbor_alltoall"], work_factor=0, msize=1024),
    ),
)
