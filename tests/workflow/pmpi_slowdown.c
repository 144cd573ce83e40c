/* libnbh-slowdown.so: a PMPI tool that makes chosen MPI calls slower by a
 * known amount, so that an end-to-end test can plant a guideline violation
 * in a real measurement and check that the analysis finds exactly it.
 * Loaded with LD_PRELOAD (`--set launch_env=LD_PRELOAD=...`); configured by
 *   NBH_SLOWDOWN_OP        neighbor_allgather or neighbor_alltoall
 *   NBH_SLOWDOWN_DATATYPE  byte, int or double (only calls with this type)
 *   NBH_SLOWDOWN_MSIZES    comma-separated bytes per block (only these)
 *   NBH_SLOWDOWN_US        microseconds each matching call sleeps after it */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct {
    int ready;
    char op[64];
    MPI_Datatype type;
    long msizes[64];
    int nmsizes;
    long us;
} config;

static void configure(void)
{
    if (config.ready)
        return;
    config.ready = 1;
    const char *op = getenv("NBH_SLOWDOWN_OP"), *type = getenv("NBH_SLOWDOWN_DATATYPE");
    const char *msizes = getenv("NBH_SLOWDOWN_MSIZES"), *us = getenv("NBH_SLOWDOWN_US");
    if (!op || !msizes || !us)
        return;
    strncpy(config.op, op, sizeof(config.op) - 1);
    config.type = !type ? MPI_DATATYPE_NULL
                  : strcmp(type, "int") == 0 ? MPI_INT
                  : strcmp(type, "double") == 0 ? MPI_DOUBLE : MPI_BYTE;
    config.us = atol(us);
    for (char *end, *s = (char *)msizes; *s && config.nmsizes < 64; s = *end ? end + 1 : end)
        config.msizes[config.nmsizes++] = strtol(s, &end, 10);
}

static void slow_down(const char *op, int count, MPI_Datatype type)
{
    configure();
    if (strcmp(op, config.op) != 0 || (config.type != MPI_DATATYPE_NULL && type != config.type))
        return;
    int size;
    MPI_Type_size(type, &size);
    for (int i = 0; i < config.nmsizes; i++) {
        if (config.msizes[i] == (long)count * size) {
            struct timespec pause = {config.us / 1000000, (config.us % 1000000) * 1000};
            nanosleep(&pause, NULL);
            return;
        }
    }
}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int status = PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    slow_down("neighbor_allgather", sendcount, sendtype);
    return status;
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    int status = PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    slow_down("neighbor_alltoall", sendcount, sendtype);
    return status;
}
