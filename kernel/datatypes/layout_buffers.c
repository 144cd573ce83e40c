#include "datatypes/layout_buffers.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "data_buffers.h"
#include "datatypes/description_check.h"
#include "seeds.h"

/* How many descriptions a side has: one per block or slot, and at least
 * one (a process without neighbors, or a bcast receiver that sends
 * nothing, still has the type its blocks would have, for the operation's
 * arguments and for preparation.csv). */
static int described(int n)
{
    return n > 0 ? n : 1;
}

/* Commits every description, timed as one. */
static void commit_all(struct layout_state *s, int nsend, int nrecv)
{
    double t0 = MPI_Wtime();
    int any = 0;
    for (int j = 0; j < nsend; j++)
        if (s->sends[j].derived)
            any = 1, MPI_Type_commit(&s->sends[j].type);
    for (int k = 0; k < nrecv; k++)
        if (s->recvs[k].derived)
            any = 1, MPI_Type_commit(&s->recvs[k].type);
    s->commit_seconds = any ? MPI_Wtime() - t0 : -1;
}

/* The operation moves the layout's buffers with the descriptions. */
static void datatype_view(struct run_context *ctx, struct layout_state *s)
{
    int global_w = ctx->e->op == OP_alltoallw;
    ctx->sendbuf = s->send;
    ctx->recvbuf = s->recv;
    ctx->type = s->sends[0].type;
    ctx->count = ctx->nsend || ctx->nrecv ? s->sends[0].count : 0;
    ctx->recvtype = s->recvs[0].type;
    for (int j = 0; j < ctx->nsend; j++) {
        const struct description *d = &s->sends[j];
        MPI_Aint lb, extent;
        MPI_Type_get_extent(d->type, &lb, &extent);
        ctx->sendtypes[j] = d->type;
        ctx->sendcounts[j] = d->count;
        ctx->sdispls_bytes[j] = d->displacement;
        ctx->sdispls[j] = global_w ? (int)d->displacement : (int)(d->displacement / extent);
        ctx->send_offsets[j] = (size_t)d->displacement;
    }
    for (int k = 0; k < ctx->nrecv; k++) {
        const struct description *d = &s->recvs[k];
        MPI_Aint lb, extent;
        MPI_Type_get_extent(d->type, &lb, &extent);
        ctx->recvtypes[k] = d->type;
        ctx->recvcounts[k] = d->count;
        ctx->rdispls_bytes[k] = d->displacement;
        ctx->rdispls[k] = global_w ? (int)d->displacement : (int)(d->displacement / extent);
        ctx->recv_offsets[k] = (size_t)d->displacement;
    }
    ctx->send_offsets[ctx->nsend] = s->send_bytes;
    ctx->recv_offsets[ctx->nrecv] = s->recv_bytes;
}

/* The operation moves contiguous packed blocks of `block` bytes, each
 * count elements of type (MPI_PACKED, or the basic type for manual). */
static void packed_view(struct run_context *ctx, size_t block, MPI_Datatype type, int count)
{
    ctx->sendbuf = data_buffer((size_t)ctx->nsend * block, &ctx->places);
    ctx->recvbuf = data_buffer((size_t)ctx->nrecv * block, &ctx->places);
    int global_w = ctx->e->op == OP_alltoallw;
    int n = ctx->nsend > ctx->nrecv ? ctx->nsend : ctx->nrecv;
    ctx->block = block;
    ctx->type = ctx->recvtype = type;
    ctx->count = count;
    for (int i = 0; i < n; i++) {
        ctx->sendcounts[i] = ctx->recvcounts[i] = count;
        ctx->sdispls[i] = ctx->rdispls[i] = global_w ? (int)((size_t)i * block) : i * count;
        ctx->sdispls_bytes[i] = ctx->rdispls_bytes[i] = (MPI_Aint)((size_t)i * block);
        ctx->sendtypes[i] = ctx->recvtypes[i] = type;
    }
    for (int j = 0; j <= ctx->nsend; j++)
        ctx->send_offsets[j] = (size_t)j * block;
    for (int k = 0; k <= ctx->nrecv; k++)
        ctx->recv_offsets[k] = (size_t)k * block;
}

/* MPI_Pack's bytes for one block: what the packed operation moves. */
static size_t packed_size(struct run_context *ctx, const struct layout_state *s)
{
    const struct description *d = &s->recvs[0];
    int bound = 0, position = 0;
    MPI_Pack_size(d->count, d->type, ctx->comm, &bound);
    char *scratch = malloc((size_t)bound + 1);
    /* slot 0's place: the receive buffer, or one block's worth without slots */
    char *spare = ctx->nrecv ? NULL : data_buffer(geometry_buffer_bytes(&s->g, 1), &ctx->places);
    MPI_Pack((spare ? spare : s->recv) + d->displacement, d->count, d->type, scratch, bound, &position, ctx->comm);
    data_buffer_free(spare);
    free(scratch);
    return (size_t)position;
}

void layout_buffers_prepare(struct run_context *ctx)
{
    const struct experiment *e = ctx->e;
    struct layout_state *s = calloc(1, sizeof(*s));
    ctx->layout = s;
    geometry_make(e, ctx->nprocs, &s->g);
    s->basic = datatype_mpi(e->datatype);
    s->send_bytes = geometry_buffer_bytes(&s->g, ctx->nsend);
    s->recv_bytes = geometry_buffer_bytes(&s->g, ctx->nrecv);
    s->send = data_buffer(s->send_bytes, &ctx->places);
    s->recv = data_buffer(s->recv_bytes, &ctx->places);
    s->sends = calloc((size_t)described(ctx->nsend), sizeof(*s->sends));
    s->recvs = calloc((size_t)described(ctx->nrecv), sizeof(*s->recvs));
    double t0 = MPI_Wtime();
    int any = 0;
    for (int j = 0; j < described(ctx->nsend); j++) {
        describe(&s->g, s->basic, e->layout.constructor, SIDE_SEND, j, &s->sends[j]);
        any |= s->sends[j].derived;
    }
    for (int k = 0; k < described(ctx->nrecv); k++) {
        describe(&s->g, s->basic, e->layout.constructor, SIDE_RECV, k, &s->recvs[k]);
        any |= s->recvs[k].derived;
    }
    s->construct_seconds = any ? MPI_Wtime() - t0 : -1;
    commit_all(s, described(ctx->nsend), described(ctx->nrecv));
    description_check(ctx, s);
    s->packed = e->layout.packing != PACKING_datatype;
    if (!s->packed) {
        datatype_view(ctx, s);
    } else if (e->layout.packing == PACKING_mpi_pack) {
        s->packed_block = packed_size(ctx, s);
        packed_view(ctx, s->packed_block, MPI_PACKED, (int)s->packed_block);
    } else {  /* by hand: msize bytes of the basic type, as without a layout */
        s->packed_block = ctx->block;
        packed_view(ctx, ctx->block, s->basic, (int)(ctx->block / (size_t)datatype_table[e->datatype].size));
    }
}

void layout_buffers_release(struct run_context *ctx)
{
    struct layout_state *s = ctx->layout;
    if (!s)
        return;
    for (int j = 0; j < described(ctx->nsend); j++)
        description_free(&s->sends[j]);
    for (int k = 0; k < described(ctx->nrecv); k++)
        description_free(&s->recvs[k]);
    if (s->packed) {  /* else they are ctx's buffers, freed with them */
        data_buffer_free(s->send);
        data_buffer_free(s->recv);
    }
    free(s->sends);
    free(s->recvs);
    free(s);
    ctx->layout = NULL;
}

/* --- the data check --- */

struct copy {
    char *buffer;
    char *data;
    size_t at;
    int put;
};

static void copy_run(size_t offset, size_t length, void *arg)
{
    struct copy *c = arg;
    if (c->put)
        memcpy(c->buffer + offset, c->data + c->at, length);
    else
        memcpy(c->data + c->at, c->buffer + offset, length);
    c->at += length;
}

void layout_put_block(struct run_context *ctx, int j, const char *data)
{
    struct run_box box;
    geometry_send_box(&ctx->layout->g, j, &box);
    struct copy c = {ctx->layout->send, (char *)data, 0, 1};
    box_for_each(&box, copy_run, &c);
}

int layout_faces_overlap(const struct run_context *ctx)
{
    return ctx->layout->g.params.layout == LAYOUT_halo;
}

static char pattern_byte(int rank, size_t offset)
{
    return (char)(mix64(((uint64_t)(uint32_t)rank << 40) ^ (offset >> 3)) >> ((offset & 7) * 8));
}

void layout_fill_pattern(struct run_context *ctx)
{
    struct layout_state *s = ctx->layout;
    for (size_t o = 0; o < s->send_bytes; o++)
        s->send[o] = pattern_byte(ctx->rank, o);
}

struct expect {
    int rank;
    char *data;
    size_t at;
};

static void expect_run(size_t offset, size_t length, void *arg)
{
    struct expect *x = arg;
    for (size_t i = 0; i < length; i++)
        x->data[x->at++] = pattern_byte(x->rank, offset + i);
}

void layout_expected(const struct run_context *ctx, int sender, int name, char *data)
{
    struct run_box box;
    geometry_send_box(&ctx->layout->g, name, &box);
    struct expect x = {sender, data, 0};
    box_for_each(&box, expect_run, &x);
}

void layout_get_slot(const struct run_context *ctx, int k, char *data)
{
    struct run_box box;
    geometry_recv_box(&ctx->layout->g, k, &box);
    struct copy c = {ctx->layout->recv, data, 0, 0};
    box_for_each(&box, copy_run, &c);
}

void layout_poison(struct run_context *ctx, int poison)
{
    struct layout_state *s = ctx->layout;
    memset(s->recv, poison, s->recv_bytes);
    if (s->packed)
        memset(ctx->recvbuf, poison, (size_t)ctx->nrecv * s->packed_block);
}

struct fill {
    char *buffer;
    int value;
};

static void fill_run(size_t offset, size_t length, void *arg)
{
    struct fill *f = arg;
    memset(f->buffer + offset, f->value, length);
}

long layout_gap_written(struct run_context *ctx, int poison)
{
    struct layout_state *s = ctx->layout;
    struct fill f = {s->recv, poison};
    for (int k = 0; k < ctx->nrecv; k++) {
        if (ctx->slot_senders[k] == MPI_PROC_NULL)
            continue;
        struct run_box box;
        geometry_recv_box(&s->g, k, &box);
        box_for_each(&box, fill_run, &f);
    }
    for (size_t o = 0; o < s->recv_bytes; o++)
        if ((unsigned char)s->recv[o] != (unsigned char)poison)
            return (long)o;
    return -1;
}

void layout_preparation(struct run_context *ctx, struct preparation *p)
{
    struct layout_state *s = ctx->layout;
    double mine[2] = {s ? s->commit_seconds : -1, s ? s->construct_seconds : -1}, slowest[2] = {-1, -1};
    MPI_Reduce(mine, slowest, 2, MPI_DOUBLE, MPI_MAX, 0, ctx->base);
    if (!s)
        return;
    const struct description *d = &s->sends[0];
    int size;
    MPI_Aint lb, extent;
    MPI_Type_size(d->type, &size);
    MPI_Type_get_extent(d->type, &lb, &extent);
    p->type_size = (double)size * d->count;
    p->type_extent = (double)extent * d->count;
    p->commit_seconds = slowest[0];
    p->construct_seconds = slowest[1];
    snprintf(p->type_check, sizeof(p->type_check), "%s", s->check);
}
