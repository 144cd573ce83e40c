/* The studies' ping-pong: ranks 2i and 2i+1 of the topology communicator.
 * 2i sends its block and receives 2i+1's; 2i+1 receives, then sends its
 * block back: one round trip per repetition. An odd last rank idles. With
 * a packing other than the library's, each side packs right before it
 * sends and unpacks right after it receives (the studies' ping: pack, send,
 * receive, unpack; pong: receive, unpack, pack, send). */
#include "datatypes/packing.h"
#include "setup.h"

static int partner(const struct run_context *c)
{
    int p = c->rank ^ 1;
    return p < c->nprocs ? p : MPI_PROC_NULL;
}

static void prepare(struct run_context *ctx)
{
    int other = partner(ctx);
    buffers_prepare(ctx, other == MPI_PROC_NULL ? 0 : 1, 1, NULL, NULL);
    ctx->block_names[0] = 0;
    ctx->slot_senders[0] = other;
    ctx->slot_names[0] = 0;
}

static void send(struct run_context *c, int to)
{
    packing_pack(c);
    MPI_Send(c->sendbuf + c->sdispls_bytes[0], c->sendcounts[0], c->sendtypes[0], to, 0, c->comm);
}

static void receive(struct run_context *c, int from)
{
    MPI_Recv(c->recvbuf + c->rdispls_bytes[0], c->recvcounts[0], c->recvtypes[0], from, 0, c->comm,
             MPI_STATUS_IGNORE);
    packing_unpack(c);
}

static void pingpong(struct run_context *c)
{
    int other = partner(c);
    if (other == MPI_PROC_NULL)
        return;
    if (c->rank % 2 == 0) {
        send(c, other);
        receive(c, other);
    } else {
        receive(c, other);
        send(c, other);
    }
}

const struct setup setup_pingpong = {prepare, pingpong, NULL, NULL, buffers_release};
