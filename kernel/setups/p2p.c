/* Hand-written baselines: the same neighbor exchange as the neighborhood
 * collectives, with MPI_Irecv / MPI_Isend / MPI_Waitall over the same
 * neighbor lists and the same counts (p2p_alltoallv: a graph's edge
 * counts, laid out by prepare_neighbor_alltoall) and datatypes (a layout's:
 * the halo's faces each their own). The pairing names (pairing.h) are the tags, so duplicate
 * edges pair exactly as the standard requires of the collectives. */
#include <stdlib.h>

#include "mpi_sentinels.h"
#include "setup.h"

/* One request per edge: an allgather sends its one block to every destination. */
static void allocate_requests(struct run_context *ctx)
{
    ctx->requests = calloc((size_t)(ctx->lists.indegree + ctx->lists.outdegree + 1), sizeof(MPI_Request));
}

static void prepare_allgather(struct run_context *ctx)
{
    prepare_neighbor_allgather(ctx);
    allocate_requests(ctx);
}

static void prepare_alltoall(struct run_context *ctx)
{
    prepare_neighbor_alltoall(ctx);
    allocate_requests(ctx);
}

static void post_receives(struct run_context *c)
{
    for (int k = 0; k < c->lists.indegree; k++)
        MPI_Irecv(c->recvbuf + c->rdispls_bytes[k], c->recvcounts[k], c->recvtypes[k], c->lists.sources[k],
                  c->recv_tags[k], c->comm, &c->requests[k]);
}

static void p2p_allgather(struct run_context *c)
{
    post_receives(c);
    for (int j = 0; j < c->lists.outdegree; j++)
        MPI_Isend(c->sendbuf + c->sdispls_bytes[0], c->sendcounts[0], c->sendtypes[0], c->lists.destinations[j],
                  c->send_tags[j], c->comm, &c->requests[c->lists.indegree + j]);
    MPI_Waitall(c->lists.indegree + c->lists.outdegree, c->requests, MPI_STATUSES_IGNORE);
}

static void p2p_alltoall(struct run_context *c)
{
    post_receives(c);
    for (int j = 0; j < c->lists.outdegree; j++)
        MPI_Isend(c->sendbuf + c->sdispls_bytes[j], c->sendcounts[j], c->sendtypes[j], c->lists.destinations[j],
                  c->send_tags[j], c->comm, &c->requests[c->lists.indegree + j]);
    MPI_Waitall(c->lists.indegree + c->lists.outdegree, c->requests, MPI_STATUSES_IGNORE);
}

const struct setup setup_p2p_allgather = {prepare_allgather, p2p_allgather, NULL, NULL, buffers_release};
const struct setup setup_p2p_alltoall = {prepare_alltoall, p2p_alltoall, NULL, NULL, buffers_release};
const struct setup setup_p2p_alltoallv = {prepare_alltoall, p2p_alltoall, NULL, NULL, buffers_release};
