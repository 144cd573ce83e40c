"""struct-slowdown: pingpong of tiled Variant 1 (A = 2) in four descriptions, two sizes."""
from gen.design import cross, levels

EXPERIMENTS = cross(
    levels(op="pingpong", topology="cart", ndim=1, datatype="int", msize=[800, 3200]),
    levels(layout="tiled", unit=2, stride=4),
    levels(type_constructor=["contiguous_resized", "vector", "hvector", "struct"]),
)
