/* libnbh-algorithm.so: a PMPI tool for the tune tests that plants what a
 * library parameter heals: MPI_Alltoall waits NBH_TUNE_SLOW_US after each
 * call unless the environment variable NBH_TUNE_FAST_VARIABLE has the value
 * NBH_TUNE_FAST_VALUE (the variable a parameter set gives the ranks, e.g.
 * OMPI_MCA_coll_tuned_alltoall_algorithm=pairwise); MPI_Neighbor_alltoall
 * waits NBH_TUNE_NEIGHBOR_US after each call. So GL8 (Alltoall <=
 * Neighbor_alltoall) is violated under every setting but one, which heals
 * it. Loaded with LD_PRELOAD (--set launch_env=...). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void wait_us(const char *variable)
{
    const char *text = getenv(variable);
    long us = text ? atol(text) : 0;
    struct timespec pause = {us / 1000000, (us % 1000000) * 1000};
    if (us > 0)
        nanosleep(&pause, NULL);
}

static int healed(void)
{
    const char *variable = getenv("NBH_TUNE_FAST_VARIABLE"), *value = getenv("NBH_TUNE_FAST_VALUE");
    const char *set = variable ? getenv(variable) : NULL;
    return set && value && strcmp(set, value) == 0;
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm)
{
    int status = PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    if (!healed())
        wait_us("NBH_TUNE_SLOW_US");
    return status;
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int status = PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    wait_us("NBH_TUNE_NEIGHBOR_US");
    return status;
}
