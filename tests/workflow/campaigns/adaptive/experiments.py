"""adaptive (as planted): one operation, two datatypes moving the same bytes, four sizes."""
from gen.design import cross, levels

EXPERIMENTS = cross(
    levels(op="neighbor_alltoall", topology="cart", ndim=2, nfin=0),
    levels(datatype=["int", "byte"]),
    levels(msize=[256, 1024, 4096, 16384]),
)
