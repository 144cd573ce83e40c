#include "datatypes/description_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gather {
    const char *buffer;
    char *out;
    size_t at;
};

static void gather_run(size_t offset, size_t length, void *arg)
{
    struct gather *g = arg;
    memcpy(g->out + g->at, g->buffer + offset, length);
    g->at += length;
}

/* MPI_Pack of d over buffer into out; the bytes packed. */
static int pack(const struct description *d, const char *buffer, char *out, int capacity, MPI_Comm comm)
{
    int position = 0;
    MPI_Pack(buffer + d->displacement, d->count, d->type, out, capacity, &position, comm);
    return position;
}

/* Where a description's bytes begin and end in its buffer. */
static void span(const struct description *d, MPI_Aint *first, MPI_Aint *last)
{
    MPI_Aint lb, extent;
    MPI_Type_get_true_extent(d->type, &lb, &extent);
    MPI_Aint step, step_lb;
    MPI_Type_get_extent(d->type, &step_lb, &step);
    *first = d->displacement + lb;
    *last = *first + extent + (MPI_Aint)(d->count - 1) * step;
}

/* "" if description d (by constructor c) of block `index` agrees with the
 * normal description dn and with the geometry's runs over the layout's
 * buffer (patterned: data_buffers.h), else what differs. Needs
 * LAYOUT_CHECK_BLOCKS blocks of msize bytes of scratch (geometry.h). */
static void compare(struct run_context *ctx, struct layout_state *s, enum side side, int index,
                    const struct description *d, char *why, size_t size)
{
    const char *name = type_constructor_names[ctx->e->layout.constructor];
    enum type_constructor normal = layout_normal(ctx->e->layout.layout);
    struct description dn;
    describe(&s->g, s->basic, normal, side, index, &dn);
    if (dn.derived)
        MPI_Type_commit(&dn.type);
    /* the layout's own buffer, which holds the data pattern (data_buffers.h) */
    const char *pattern = side == SIDE_SEND ? s->send : s->recv;
    int sz, szn;
    MPI_Type_size(d->type, &sz);
    MPI_Type_size(dn.type, &szn);
    MPI_Aint lb, ext, lbn, extn, first, last, firstn, lastn;
    MPI_Type_get_extent(d->type, &lb, &ext);
    MPI_Type_get_extent(dn.type, &lbn, &extn);
    span(d, &first, &last);
    span(&dn, &firstn, &lastn);
    const char *where = side == SIDE_SEND ? "send block" : "receive slot";
    double data = (double)sz * d->count, datan = (double)szn * dn.count;
    if (data != (double)s->g.data_bytes || datan != data) {
        snprintf(why, size, "%s %d: %s has %.0f bytes of data; %s %.0f; msize %zu", where, index, name, data,
                 type_constructor_names[normal], datan, s->g.data_bytes);
    } else if (s->g.params.layout != LAYOUT_halo && (double)ext * d->count != (double)extn * dn.count) {
        snprintf(why, size, "%s %d: %s spans an extent of %.0f bytes; %s %.0f", where, index, name,
                 (double)ext * d->count, type_constructor_names[normal], (double)extn * dn.count);
    } else if (first != firstn || last != lastn) {
        snprintf(why, size, "%s %d: %s covers bytes %ld..%ld; %s %ld..%ld", where, index, name, (long)first,
                 (long)last, type_constructor_names[normal], (long)firstn, (long)lastn);
    } else {
        size_t n = s->g.data_bytes;
        char *a = malloc(LAYOUT_CHECK_BLOCKS * (n + 1)), *b = a + n + 1, *c = b + n + 1;
        int packed = pack(d, pattern, a, (int)n + 1, ctx->comm), packedn = pack(&dn, pattern, b, (int)n + 1, ctx->comm);
        struct run_box box;
        (side == SIDE_SEND ? geometry_send_box : geometry_recv_box)(&s->g, index, &box);
        struct gather g = {pattern, c, 0};
        box_for_each(&box, gather_run, &g);
        size_t o = 0;
        while (o < n && a[o] == b[o] && a[o] == c[o])
            o++;
        if (packed != packedn || (size_t)packed != n)
            snprintf(why, size, "%s %d: MPI_Pack gives %d bytes by %s; %d by %s", where, index, packed, name,
                     packedn, type_constructor_names[normal]);
        else if (o < n)
            snprintf(why, size, "%s %d: packed byte %zu differs between %s; %s and the layout's elements", where, index,
                     o, name, type_constructor_names[normal]);
        free(a);
    }
    description_free(&dn);
}

void description_check(struct run_context *ctx, struct layout_state *s)
{
    /* Blocks of the static layouts and the transpose differ only in their
     * place; every face of the halo has its own shape. */
    int every = s->g.params.layout == LAYOUT_halo;
    char why[sizeof(s->check)] = "";
    for (int j = 0; j < ctx->nsend && !*why && (every || j == 0); j++)
        compare(ctx, s, SIDE_SEND, j, &s->sends[j], why, sizeof(why));
    for (int k = 0; k < ctx->nrecv && !*why && (every || k == 0); k++)
        compare(ctx, s, SIDE_RECV, k, &s->recvs[k], why, sizeof(why));
    snprintf(s->check, sizeof(s->check), "%s", *why ? why : "ok");
}
