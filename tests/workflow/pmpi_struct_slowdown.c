/* libnbh-struct-slowdown.so: a PMPI tool that makes MPI_Send slower by a
 * known amount, but only with a derived datatype built (anywhere in its
 * tree) with MPI_Type_create_struct: a library whose commit-time
 * normalization left struct descriptions slow. The end-to-end test plants
 * it under the datatypes guideline DT3 (another description is not slower
 * than the normal one) and checks that the analysis finds exactly the
 * struct descriptions. Loaded with LD_PRELOAD; configured by
 *   NBH_SLOWDOWN_US   microseconds each matching MPI_Send sleeps after it */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

/* Whether type was made with MPI_Type_create_struct, or from one that was. */
static int has_struct(MPI_Datatype type)
{
    int nint, naddr, ntype, combiner;
    MPI_Type_get_envelope(type, &nint, &naddr, &ntype, &combiner);
    if (combiner == MPI_COMBINER_NAMED)
        return 0;
    if (combiner == MPI_COMBINER_STRUCT)
        return 1;
    int *ints = malloc(sizeof(int) * (size_t)(nint + 1));
    MPI_Aint *addrs = malloc(sizeof(MPI_Aint) * (size_t)(naddr + 1));
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(ntype + 1));
    MPI_Type_get_contents(type, nint, naddr, ntype, ints, addrs, types);
    int found = 0;
    for (int i = 0; i < ntype; i++) {
        found = found || has_struct(types[i]);
        int inner_nint, inner_naddr, inner_ntype, inner;
        MPI_Type_get_envelope(types[i], &inner_nint, &inner_naddr, &inner_ntype, &inner);
        if (inner != MPI_COMBINER_NAMED)
            MPI_Type_free(&types[i]);
    }
    free(ints), free(addrs), free(types);
    return found;
}

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    int status = PMPI_Send(buf, count, type, dest, tag, comm);
    const char *us = getenv("NBH_SLOWDOWN_US");
    if (us && has_struct(type)) {
        long micro = atol(us);
        struct timespec pause = {micro / 1000000, (micro % 1000000) * 1000};
        nanosleep(&pause, NULL);
    }
    return status;
}
