#include "dissemination_barrier.h"

#include <stddef.h>

void dissemination_barrier(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    for (int distance = 1; distance < p; distance <<= 1)
        MPI_Sendrecv(NULL, 0, MPI_BYTE, (rank + distance) % p, NBH_BARRIER_TAG, NULL, 0, MPI_BYTE,
                     (rank - distance + p) % p, NBH_BARRIER_TAG, comm, MPI_STATUS_IGNORE);
}
