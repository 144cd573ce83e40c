/* libnbh-neighbor-barrier.so: a PMPI tool that makes every
 * MPI_Neighbor_alltoall wait for all processes of its communicator first
 * (MPI_Barrier), as a library that synchronised globally would. With one
 * late process every other process then waits for it, neighbor or not:
 * the defect AR2 finds (tests/workflow/test_end_to_end_arrival.py).
 * Loaded with LD_PRELOAD; no configuration. */
#include <mpi.h>

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    PMPI_Barrier(comm);
    return PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}
