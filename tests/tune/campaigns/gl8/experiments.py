"""gl8: MPI_Alltoall and MPI_Neighbor_alltoall on the Full neighborhood."""
from gen.design import levels

EXPERIMENTS = levels(op=["alltoall", "neighbor_alltoall"], topology="full", constructor="dist_graph_adjacent",
                     order="LINEAR", msize=[256, 1024])
