/* Buffers, counts and displacements shared by all data-moving setups. The v
 * and w variants get equal counts and contiguous displacements, so they move
 * exactly what the regular variant moves; on a graph they carry the edges'
 * counts (entries x msize bytes). */
#include <stdlib.h>
#include <string.h>

#include "data_buffers.h"
#include "datatypes/layout_buffers.h"
#include "setup.h"

static void *zeroed(size_t n, size_t size)
{
    return calloc(n + 1, size);  /* +1: never zero-sized */
}

/* offsets[i]: bytes before block i of n, each entries[i] x block bytes (1 if
 * entries is NULL); offsets[n] the total. */
static size_t *block_offsets(const int *entries, int n, size_t block)
{
    size_t *offsets = zeroed((size_t)n + 1, sizeof(size_t));
    for (int i = 0; i < n; i++)
        offsets[i + 1] = offsets[i] + (entries ? (size_t)entries[i] : 1) * block;
    return offsets;
}

void buffers_prepare(struct run_context *ctx, int nsend, int nrecv, const int *send_entries,
                     const int *recv_entries)
{
    const struct experiment *e = ctx->e;
    int n = nsend > nrecv ? nsend : nrecv;
    ctx->type = ctx->recvtype = datatype_mpi(e->datatype);
    ctx->block = (size_t)e->msize;
    ctx->count = (int)(e->msize / datatype_table[e->datatype].size);
    ctx->nsend = nsend;
    ctx->nrecv = nrecv;
    ctx->send_offsets = block_offsets(send_entries, nsend, ctx->block);
    ctx->recv_offsets = block_offsets(recv_entries, nrecv, ctx->block);
    int plain = layout_is_plain(&e->layout);
    if (plain) {  /* else the layout's own (layout_buffers.c) */
        ctx->sendbuf = data_buffer(ctx->send_offsets[nsend], &ctx->places);
        ctx->recvbuf = data_buffer(ctx->recv_offsets[nrecv], &ctx->places);
    }
    ctx->sendcounts = zeroed((size_t)n, sizeof(int));
    ctx->recvcounts = zeroed((size_t)n, sizeof(int));
    ctx->sdispls = zeroed((size_t)n, sizeof(int));
    ctx->rdispls = zeroed((size_t)n, sizeof(int));
    ctx->sdispls_bytes = zeroed((size_t)n, sizeof(MPI_Aint));
    ctx->rdispls_bytes = zeroed((size_t)n, sizeof(MPI_Aint));
    ctx->sendtypes = zeroed((size_t)n, sizeof(MPI_Datatype));
    ctx->recvtypes = zeroed((size_t)n, sizeof(MPI_Datatype));
    ctx->block_names = zeroed((size_t)nsend, sizeof(int));
    ctx->block_sent = zeroed((size_t)nsend, sizeof(int));
    for (int j = 0; j < nsend; j++)
        ctx->block_sent[j] = 1;
    ctx->slot_senders = zeroed((size_t)nrecv, sizeof(int));
    ctx->slot_names = zeroed((size_t)nrecv, sizeof(int));
    int global_w = e->op == OP_alltoallw;  /* MPI_Alltoallw: int byte displacements */
    size_t element = (size_t)datatype_table[e->datatype].size;
    for (int i = 0; i < n; i++) {
        ctx->sendcounts[i] = ctx->recvcounts[i] = ctx->count;
        ctx->sdispls[i] = ctx->rdispls[i] = global_w ? (int)((size_t)i * ctx->block) : i * ctx->count;
        ctx->sdispls_bytes[i] = ctx->rdispls_bytes[i] = (MPI_Aint)((size_t)i * ctx->block);
        ctx->sendtypes[i] = ctx->recvtypes[i] = ctx->type;
    }
    /* Sizes checked against int before anything ran (graph_inputs.c). */
    for (int j = 0; j < nsend && send_entries; j++) {
        ctx->sendcounts[j] = (int)((ctx->send_offsets[j + 1] - ctx->send_offsets[j]) / element);
        ctx->sdispls[j] = (int)(ctx->send_offsets[j] / element);
        ctx->sdispls_bytes[j] = (MPI_Aint)ctx->send_offsets[j];
    }
    for (int k = 0; k < nrecv && recv_entries; k++) {
        ctx->recvcounts[k] = (int)((ctx->recv_offsets[k + 1] - ctx->recv_offsets[k]) / element);
        ctx->rdispls[k] = (int)(ctx->recv_offsets[k] / element);
        ctx->rdispls_bytes[k] = (MPI_Aint)ctx->recv_offsets[k];
    }
    if (!plain)
        layout_buffers_prepare(ctx);
}

void buffers_release(struct run_context *ctx)
{
    layout_buffers_release(ctx);
    data_buffer_free(ctx->sendbuf);
    data_buffer_free(ctx->recvbuf);
    void *owned[] = {ctx->sendcounts, ctx->recvcounts, ctx->sdispls,
                     ctx->rdispls, ctx->sdispls_bytes, ctx->rdispls_bytes, ctx->sendtypes,
                     ctx->recvtypes, ctx->requests, ctx->block_names, ctx->block_sent, ctx->slot_senders,
                     ctx->slot_names, ctx->send_offsets, ctx->recv_offsets};
    for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
        free(owned[i]);
    ctx->sendbuf = ctx->recvbuf = NULL;
    ctx->sendcounts = ctx->recvcounts = ctx->sdispls = ctx->rdispls = NULL;
    ctx->sdispls_bytes = ctx->rdispls_bytes = NULL;
    ctx->sendtypes = ctx->recvtypes = NULL;
    ctx->requests = NULL;
    ctx->block_names = ctx->block_sent = ctx->slot_senders = ctx->slot_names = NULL;
    ctx->send_offsets = ctx->recv_offsets = NULL;
    ctx->nsend = ctx->nrecv = 0;
}

/* Whether the v and w variants carry per-edge counts: on a graph, for the
 * neighborhood collectives and the p2p baselines. */
static int carries_edge_counts(const struct run_context *ctx)
{
    const struct operation_info *o = &operation_table[ctx->e->op];
    return ctx->edge_out && *o->variant;
}

/* The neighbor exchange layouts, shared by the collectives and the p2p
 * baselines. Allgather: one block to every destination; slot k from source k. */
void prepare_neighbor_allgather(struct run_context *ctx)
{
    int counts = carries_edge_counts(ctx);
    buffers_prepare(ctx, 1, ctx->lists.indegree, counts ? &ctx->block_out : NULL,
                    counts ? ctx->block_in : NULL);
    ctx->block_names[0] = 0;
    ctx->block_sent[0] = 0;
    for (int j = 0; j < ctx->lists.outdegree; j++)
        ctx->block_sent[0] |= ctx->lists.destinations[j] != MPI_PROC_NULL;
    for (int k = 0; k < ctx->nrecv; k++) {
        ctx->slot_senders[k] = ctx->lists.sources[k];
        ctx->slot_names[k] = 0;
    }
}

/* Alltoall: block j to destination j; slot k gets the block its source
 * sent under the pairing name recv_tags[k]. */
void prepare_neighbor_alltoall(struct run_context *ctx)
{
    int counts = carries_edge_counts(ctx);
    buffers_prepare(ctx, ctx->lists.outdegree, ctx->lists.indegree, counts ? ctx->edge_out : NULL,
                    counts ? ctx->edge_in : NULL);
    for (int j = 0; j < ctx->nsend; j++) {
        ctx->block_names[j] = ctx->send_tags[j];
        ctx->block_sent[j] = ctx->lists.destinations[j] != MPI_PROC_NULL;
    }
    for (int k = 0; k < ctx->nrecv; k++) {
        ctx->slot_senders[k] = ctx->lists.sources[k];
        ctx->slot_names[k] = ctx->recv_tags[k];
    }
}

void wait_request(struct run_context *ctx)
{
    MPI_Wait(&ctx->request, MPI_STATUS_IGNORE);
}
