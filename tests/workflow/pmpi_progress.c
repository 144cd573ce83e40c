/* A PMPI tool that takes asynchronous progress away, built by
 * test_end_to_end_progress.py, so that the analysis must find what it
 * planted. Loaded with LD_PRELOAD; configured by
 *   NBH_SHIM_COMPLETE_INSIDE=1  MPI_Ineighbor_alltoall does the whole exchange
 *                               inside the call and returns a finished
 *                               (null) request: nothing is left to overlap
 *                               with the busy work (GL16 violated, overlap 0)
 *   NBH_SHIM_START_SPIN_US=N    MPI_Start spins N microseconds before it
 *                               starts the request (GL14 violated) */
#include <mpi.h>
#include <stdlib.h>
#include <time.h>

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec * 1e-3;
}

int MPI_Ineighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request)
{
    int status = PMPI_Ineighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                         request);
    const char *inside = getenv("NBH_SHIM_COMPLETE_INSIDE");
    if (status == MPI_SUCCESS && inside && *inside == '1')
        status = PMPI_Wait(request, MPI_STATUS_IGNORE);  /* *request becomes MPI_REQUEST_NULL */
    return status;
}

int MPI_Start(MPI_Request *request)
{
    const char *spin = getenv("NBH_SHIM_START_SPIN_US");
    if (spin) {
        double until = now_us() + atof(spin);
        while (now_us() < until)
            ;
    }
    return PMPI_Start(request);
}
