/* The neighborhood collectives, blocking and nonblocking (start; busy work;
 * wait). Allgather sends one block to all destinations; alltoall block j to
 * destination j. */
#include "setup.h"

static void neighbor_allgather(struct run_context *c)
{
    MPI_Neighbor_allgather(c->sendbuf, c->count, c->type, c->recvbuf, c->count, c->recvtype, c->comm);
}

static void neighbor_allgatherv(struct run_context *c)
{
    MPI_Neighbor_allgatherv(c->sendbuf, c->sendcounts[0], c->type, c->recvbuf, c->recvcounts,
                            c->rdispls, c->recvtype, c->comm);
}

static void neighbor_alltoall(struct run_context *c)
{
    MPI_Neighbor_alltoall(c->sendbuf, c->count, c->type, c->recvbuf, c->count, c->recvtype, c->comm);
}

static void neighbor_alltoallv(struct run_context *c)
{
    MPI_Neighbor_alltoallv(c->sendbuf, c->sendcounts, c->sdispls, c->type, c->recvbuf,
                           c->recvcounts, c->rdispls, c->recvtype, c->comm);
}

static void neighbor_alltoallw(struct run_context *c)
{
    MPI_Neighbor_alltoallw(c->sendbuf, c->sendcounts, c->sdispls_bytes, c->sendtypes, c->recvbuf,
                           c->recvcounts, c->rdispls_bytes, c->recvtypes, c->comm);
}

static void ineighbor_allgather(struct run_context *c)
{
    MPI_Ineighbor_allgather(c->sendbuf, c->count, c->type, c->recvbuf, c->count, c->recvtype, c->comm,
                            &c->request);
}

static void ineighbor_allgatherv(struct run_context *c)
{
    MPI_Ineighbor_allgatherv(c->sendbuf, c->sendcounts[0], c->type, c->recvbuf, c->recvcounts,
                             c->rdispls, c->recvtype, c->comm, &c->request);
}

static void ineighbor_alltoall(struct run_context *c)
{
    MPI_Ineighbor_alltoall(c->sendbuf, c->count, c->type, c->recvbuf, c->count, c->recvtype, c->comm,
                           &c->request);
}

static void ineighbor_alltoallv(struct run_context *c)
{
    MPI_Ineighbor_alltoallv(c->sendbuf, c->sendcounts, c->sdispls, c->type, c->recvbuf,
                            c->recvcounts, c->rdispls, c->recvtype, c->comm, &c->request);
}

static void ineighbor_alltoallw(struct run_context *c)
{
    MPI_Ineighbor_alltoallw(c->sendbuf, c->sendcounts, c->sdispls_bytes, c->sendtypes, c->recvbuf,
                            c->recvcounts, c->rdispls_bytes, c->recvtypes, c->comm, &c->request);
}

#define BLOCKING(name, pattern) \
    const struct setup setup_##name = {prepare_neighbor_##pattern, name, NULL, NULL, buffers_release};
#define NONBLOCKING(name, pattern) \
    const struct setup setup_##name = {prepare_neighbor_##pattern, name, wait_request, NULL, buffers_release};

BLOCKING(neighbor_allgather, allgather)
BLOCKING(neighbor_allgatherv, allgather)
BLOCKING(neighbor_alltoall, alltoall)
BLOCKING(neighbor_alltoallv, alltoall)
BLOCKING(neighbor_alltoallw, alltoall)
NONBLOCKING(ineighbor_allgather, allgather)
NONBLOCKING(ineighbor_allgatherv, allgather)
NONBLOCKING(ineighbor_alltoall, alltoall)
NONBLOCKING(ineighbor_alltoallv, alltoall)
NONBLOCKING(ineighbor_alltoallw, alltoall)
