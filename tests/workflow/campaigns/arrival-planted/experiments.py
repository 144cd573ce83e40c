"""arrival-planted: one exchange on a ring, without delay and with one late process."""
from gen.design import cross, levels, union

EXPERIMENTS = cross(
    levels(op="neighbor_alltoall", topology="cart", ndim=1, nfin=0, msize=64),
    union(levels(arrival="none"),
          levels(arrival="one_late", arrival_us=20000)),   # the late process: p/2 = 2; process 0 is no neighbor
)
