"""fill: 30 experiments that differ only in msize (8..240), 100 us of busy work per repetition."""
from gen.design import cross, levels

EXPERIMENTS = cross(
    levels(op="neighbor_allgather", topology="cart", ndim=1),
    levels(msize=[8 * k for k in range(1, 31)]),
    levels(work_us=100),
)
