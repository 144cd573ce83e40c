#include "datatypes/packing.h"

#include <stdint.h>
#include <string.h>

#include "datatypes/layout_buffers.h"

/* One run; the common small lengths as single moves, as a user's typed
 * loop would compile. */
static inline void move(char *to, const char *from, size_t n)
{
    switch (n) {
    case 1: *to = *from; return;
    case 2: memcpy(to, from, 2); return;
    case 4: memcpy(to, from, 4); return;
    case 8: memcpy(to, from, 8); return;
    default: memcpy(to, from, n); return;
    }
}

static inline void copy_one(char *layout, char *packed, size_t n, int gather)
{
    if (gather)
        move(packed, layout, n);
    else
        move(layout, packed, n);
}

/* Levels first..last-1 of the box are walked by an odometer; `inner`
 * copies the rest from a base offset, and returns the packed bytes done. */
static size_t walk(const struct run_box *b, int levels, char *layout, char *packed, int gather,
                   size_t (*inner)(const struct run_box *, size_t, char *, char *, int))
{
    long index[NBH_MAX_NDIM] = {0};
    for (int k = 0; k < b->nlevels; k++)
        if (b->count[k] == 0)
            return 0;
    size_t done = 0;
    for (;;) {
        size_t at = b->offset;
        for (int k = 0; k < levels; k++)
            at += (size_t)index[k] * b->stride[k];
        done += inner(b, at, layout, packed + done, gather);
        int k = levels - 1;
        while (k >= 0 && ++index[k] == b->count[k])
            index[k--] = 0;
        if (k < 0)
            return done;
    }
}

/* The innermost level (or one step where there is none), unit by unit. */
static size_t plain_inner(const struct run_box *b, size_t at, char *layout, char *packed, int gather)
{
    int last = b->nlevels - 1;
    long n = last >= 0 ? b->count[last] : 1;
    size_t stride = last >= 0 ? b->stride[last] : 0, done = 0;
    if (b->nunits == 1) {
        size_t length = b->unit_length[0], offset = at + b->unit_offset[0];
        for (long i = 0; i < n; i++, done += length)
            copy_one(layout + offset + (size_t)i * stride, packed + done, length, gather);
        return done;
    }
    for (long i = 0; i < n; i++)
        for (int u = 0; u < b->nunits; u++) {
            copy_one(layout + at + (size_t)i * stride + b->unit_offset[u], packed + done, b->unit_length[u],
                     gather);
            done += b->unit_length[u];
        }
    return done;
}

/* The two innermost levels (outer o, inner i) of single elements in
 * tiles (the packing study's cache blocking): the packed element of (o, i)
 * is o * ni + i. The innermost loop runs along the level whose elements lie
 * closer together in the layout; the tile is NBH_PACK_TILE_SHORT steps of
 * the other level (lines at a large stride: no more than the cache's ways)
 * by NBH_PACK_TILE_LONG of this one. T is the element type, so that the
 * moves are single loads and stores; `generic` copies any length. */
struct tile {
    char *layout, *packed;
    long no, ni;
    size_t so, si, length;  /* strides and length in bytes */
    int gather;
};

/* One tile; MOVE(l, p) is the copy of one element between layout and packed. */
#define TILE_LOOPS(T, MOVE)                                                                          \
    if (along_o) {                                                                                  \
        for (long i = i0; i < i1; i++) {                                                            \
            T *l = layout + (size_t)o0 * so + (size_t)i * si, *p = packed + (size_t)o0 * ni + (size_t)i; \
            for (long o = o0; o < o1; o++, l += so, p += ni)                                        \
                MOVE;                                                                               \
        }                                                                                           \
    } else {                                                                                        \
        for (long o = o0; o < o1; o++) {                                                            \
            T *l = layout + (size_t)o * so + (size_t)i0 * si, *p = packed + (size_t)o * ni + (size_t)i0; \
            for (long i = i0; i < i1; i++, l += si, p++)                                            \
                MOVE;                                                                               \
        }                                                                                           \
    }

#define TILE_OF(T)                                                                              \
    static void tile_##T(const struct tile *t, long o0, long o1, long i0, long i1, int along_o) \
    {                                                                                          \
        T *layout = (T *)t->layout, *packed = (T *)t->packed;                                  \
        size_t so = t->so / sizeof(T), si = t->si / sizeof(T), ni = (size_t)t->ni;             \
        if (t->gather) {                                                                       \
            TILE_LOOPS(T, *p = *l)                                                             \
        } else {                                                                               \
            TILE_LOOPS(T, *l = *p)                                                             \
        }                                                                                      \
    }
TILE_OF(uint32_t)
TILE_OF(uint64_t)

static void tile_generic(const struct tile *t, long o0, long o1, long i0, long i1, int along_o)
{
    for (long a = along_o ? i0 : o0; a < (along_o ? i1 : o1); a++)
        for (long b = along_o ? o0 : i0; b < (along_o ? o1 : i1); b++) {
            long o = along_o ? b : a, i = along_o ? a : b;
            copy_one(t->layout + (size_t)o * t->so + (size_t)i * t->si,
                     t->packed + ((size_t)o * (size_t)t->ni + (size_t)i) * t->length, t->length, t->gather);
        }
}

static size_t tiled_inner(const struct run_box *b, size_t at, char *layout, char *packed, int gather)
{
    int outer = b->nlevels - 2, inner = b->nlevels - 1;
    struct tile t = {layout + at + b->unit_offset[0], packed, b->count[outer], b->count[inner], b->stride[outer],
                     b->stride[inner], b->unit_length[0], gather};
    int along_o = t.so < t.si;  /* the transpose's receive: o runs along the layout's rows */
    long to = along_o ? NBH_PACK_TILE_LONG : NBH_PACK_TILE_SHORT;
    long ti = along_o ? NBH_PACK_TILE_SHORT : NBH_PACK_TILE_LONG;
    void (*tile)(const struct tile *, long, long, long, long, int) = tile_generic;
    size_t n = t.length;
    if ((n == 8 || n == 4) && t.so % n == 0 && t.si % n == 0 && (uintptr_t)t.layout % n == 0 &&
        (uintptr_t)t.packed % n == 0)
        tile = n == 8 ? tile_uint64_t : tile_uint32_t;
    for (long oo = 0; oo < t.no; oo += to) {
        long oe = oo + to < t.no ? oo + to : t.no;
        for (long ii = 0; ii < t.ni; ii += ti)
            tile(&t, oo, oe, ii, ii + ti < t.ni ? ii + ti : t.ni, along_o);
    }
    return (size_t)t.no * (size_t)t.ni * t.length;
}

void copy_box(const struct run_box *box, char *layout, char *packed, int gather, int tiled)
{
    if (tiled && box->nlevels >= 2 && box->nunits == 1)
        walk(box, box->nlevels - 2, layout, packed, gather, tiled_inner);
    else
        walk(box, box->nlevels > 0 ? box->nlevels - 1 : 0, layout, packed, gather, plain_inner);
}

void packing_pack(struct run_context *ctx)
{
    struct layout_state *s = ctx->layout;
    if (!s || !s->packed)
        return;
    for (int j = 0; j < ctx->nsend; j++) {
        char *to = ctx->sendbuf + (size_t)j * s->packed_block;
        if (ctx->e->layout.packing == PACKING_mpi_pack) {
            const struct description *d = &s->sends[j];
            int position = 0;
            MPI_Pack(s->send + d->displacement, d->count, d->type, to, (int)s->packed_block, &position, ctx->comm);
        } else {
            struct run_box box;
            geometry_send_box(&s->g, j, &box);
            copy_box(&box, s->send, to, 1, ctx->e->layout.packing == PACKING_manual_tiled);
        }
    }
}

void packing_unpack(struct run_context *ctx)
{
    struct layout_state *s = ctx->layout;
    if (!s || !s->packed)
        return;
    for (int k = 0; k < ctx->nrecv; k++) {
        if (ctx->slot_senders[k] == MPI_PROC_NULL)
            continue;
        char *from = ctx->recvbuf + (size_t)k * s->packed_block;
        if (ctx->e->layout.packing == PACKING_mpi_pack) {
            const struct description *d = &s->recvs[k];
            int position = 0;
            MPI_Unpack(from, (int)s->packed_block, &position, s->recv + d->displacement, d->count, d->type, ctx->comm);
        } else {
            struct run_box box;
            geometry_recv_box(&s->g, k, &box);
            copy_box(&box, s->recv, from, 0, ctx->e->layout.packing == PACKING_manual_tiled);
        }
    }
}

/* --- the wrapped setups: ctx->inner_setup is the operation's own --- */

static void wrapped_prepare(struct run_context *ctx)
{
    ctx->inner_setup->prepare(ctx);
}

static void start_blocking(struct run_context *ctx)
{
    packing_pack(ctx);
    ctx->inner_setup->start(ctx);
    packing_unpack(ctx);
}

static void start_nonblocking(struct run_context *ctx)
{
    packing_pack(ctx);
    ctx->inner_setup->start(ctx);
}

static void complete(struct run_context *ctx)
{
    ctx->inner_setup->complete(ctx);
    packing_unpack(ctx);
}

static void after(struct run_context *ctx)
{
    if (ctx->inner_setup->after)
        ctx->inner_setup->after(ctx);
}

static void release(struct run_context *ctx)
{
    ctx->inner_setup->release(ctx);
}

static const struct setup wrapped_blocking = {wrapped_prepare, start_blocking, NULL, after, release};
static const struct setup wrapped_nonblocking = {wrapped_prepare, start_nonblocking, complete, after, release};

const struct setup *packing_setup(struct run_context *ctx, const struct setup *s)
{
    /* pingpong packs and unpacks where the studies' ping and pong do
     * (setups/pingpong.c). */
    if (!operation_table[ctx->e->op].moves_data || ctx->e->layout.packing == PACKING_datatype ||
        ctx->e->op == OP_pingpong)
        return s;
    ctx->inner_setup = s;
    return s->complete ? &wrapped_nonblocking : &wrapped_blocking;
}
