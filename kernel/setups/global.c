/* The global collectives, on the topology communicator so that the
 * constructor's reorder applies to them too. Slot i comes from rank i;
 * bcast's one slot from rank 0. */
#include "setup.h"

#define BCAST_ROOT 0

static void prepare_allgather(struct run_context *ctx)
{
    buffers_prepare(ctx, 1, ctx->nprocs, NULL, NULL);
    ctx->block_names[0] = 0;
    for (int i = 0; i < ctx->nprocs; i++) {
        ctx->slot_senders[i] = i;
        ctx->slot_names[i] = 0;
    }
}

/* Block i goes to rank i and is named after it. */
static void prepare_alltoall(struct run_context *ctx)
{
    buffers_prepare(ctx, ctx->nprocs, ctx->nprocs, NULL, NULL);
    for (int i = 0; i < ctx->nprocs; i++) {
        ctx->block_names[i] = i;
        ctx->slot_senders[i] = i;
        ctx->slot_names[i] = ctx->rank;
    }
}

/* The root sends its block; every other process receives it into its one
 * slot (and sends none: nothing to pack there). The root's slot expects
 * nothing and must stay untouched. */
static void prepare_bcast(struct run_context *ctx)
{
    buffers_prepare(ctx, ctx->rank == BCAST_ROOT ? 1 : 0, 1, NULL, NULL);
    ctx->block_names[0] = 0;
    ctx->slot_senders[0] = ctx->rank == BCAST_ROOT ? MPI_PROC_NULL : BCAST_ROOT;
    ctx->slot_names[0] = 0;
}

static void bcast(struct run_context *c)
{
    int root = c->rank == BCAST_ROOT;
    MPI_Bcast(root ? c->sendbuf : c->recvbuf, c->count, root ? c->type : c->recvtype, BCAST_ROOT, c->comm);
}

static void allgather(struct run_context *c)
{
    MPI_Allgather(c->sendbuf, c->count, c->type, c->recvbuf, c->count, c->recvtype, c->comm);
}

static void allgatherv(struct run_context *c)
{
    MPI_Allgatherv(c->sendbuf, c->count, c->type, c->recvbuf, c->recvcounts, c->rdispls, c->recvtype,
                   c->comm);
}

static void alltoall(struct run_context *c)
{
    MPI_Alltoall(c->sendbuf, c->count, c->type, c->recvbuf, c->count, c->recvtype, c->comm);
}

static void alltoallv(struct run_context *c)
{
    MPI_Alltoallv(c->sendbuf, c->sendcounts, c->sdispls, c->type, c->recvbuf, c->recvcounts,
                  c->rdispls, c->recvtype, c->comm);
}

static void alltoallw(struct run_context *c)
{
    MPI_Alltoallw(c->sendbuf, c->sendcounts, c->sdispls, c->sendtypes, c->recvbuf, c->recvcounts,
                  c->rdispls, c->recvtypes, c->comm);
}

#define GLOBAL(name, pattern) \
    const struct setup setup_##name = {prepare_##pattern, name, NULL, NULL, buffers_release};

GLOBAL(allgather, allgather)
GLOBAL(allgatherv, allgather)
GLOBAL(alltoall, alltoall)
GLOBAL(alltoallv, alltoall)
GLOBAL(alltoallw, alltoall)
GLOBAL(bcast, bcast)
