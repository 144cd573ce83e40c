#include "gather_text.h"

#include <stdlib.h>

#include "dissemination_barrier.h"

void gather_text(MPI_Comm comm, const char *text, size_t size, struct table *out)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    long length = (long)size;
    if (rank != 0) {
        MPI_Send(&length, 1, MPI_LONG, 0, NBH_GATHER_TAG, comm);
        if (length > 0)
            MPI_Send(text, (int)length, MPI_CHAR, 0, NBH_GATHER_TAG, comm);
        return;
    }
    table_append(out, text, size);
    for (int source = 1; source < p; source++) {
        MPI_Recv(&length, 1, MPI_LONG, source, NBH_GATHER_TAG, comm, MPI_STATUS_IGNORE);
        if (length == 0)
            continue;
        char *received = malloc((size_t)length);
        MPI_Recv(received, (int)length, MPI_CHAR, source, NBH_GATHER_TAG, comm, MPI_STATUS_IGNORE);
        table_append(out, received, (size_t)length);
        free(received);
    }
}
