"""adjust: Alltoall against Neighbor_alltoall on the Full neighborhood, two sizes."""
from gen.design import cross, levels

EXPERIMENTS = cross(levels(op=["alltoall", "neighbor_alltoall"], topology="full",
                           constructor="dist_graph_adjacent", order="LINEAR"),
                    levels(msize=[64, 4096]))
