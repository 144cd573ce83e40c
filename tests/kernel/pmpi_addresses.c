/* libnbh-addresses.so: a PMPI tool that records where the buffers of every
 * MPI_Neighbor_alltoall call lie in their pages, so a test can check that
 * the kernel places them as it draws (kernel/data_buffers.h: anew in every
 * round, a twin elsewhere than its original). Loaded with LD_PRELOAD;
 * NBH_ADDRESSES_LOG=PATH makes each process append a line
 * "send_offset,recv_offset" (bytes past the page's start) per call to
 * PATH.<rank in MPI_COMM_WORLD>. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int MPI_Neighbor_alltoall(const void *sb, int sc, MPI_Datatype st, void *rb, int rc, MPI_Datatype rt,
                          MPI_Comm comm)
{
    static FILE *f;
    static int tried;
    if (!tried) {
        tried = 1;
        const char *path = getenv("NBH_ADDRESSES_LOG");
        int rank;
        PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
        if (path) {
            char name[4096];
            snprintf(name, sizeof(name), "%s.%d", path, rank);
            f = fopen(name, "a");
        }
    }
    if (f) {
        fprintf(f, "%lu,%lu\n", (unsigned long)((uintptr_t)sb % 4096), (unsigned long)((uintptr_t)rb % 4096));
        fflush(f);
    }
    return PMPI_Neighbor_alltoall(sb, sc, st, rb, rc, rt, comm);
}
