"""slow: 40 experiments that differ only in msize (8..320), each rep with 20 ms of busy work."""
from gen.design import cross, levels

EXPERIMENTS = cross(
    levels(op="neighbor_allgather", topology="cart", ndim=1),
    levels(msize=[8 * k for k in range(1, 41)]),
    levels(work_us=20000),
)
