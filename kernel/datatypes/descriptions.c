#include "datatypes/descriptions.h"

#include <stdlib.h>

/* Frees an intermediate type once the outer one holds it. */
static MPI_Datatype consume(MPI_Datatype outer, MPI_Datatype *inner)
{
    MPI_Type_free(inner);
    return outer;
}

static MPI_Datatype resized(MPI_Datatype t, MPI_Aint extent)
{
    MPI_Datatype r;
    MPI_Type_create_resized(t, 0, extent, &r);
    return consume(r, &t);
}

/* --- static layouts: c blocks of the pattern --- */

/* The block as the studies describe it (the normal constructor, count c). */
static MPI_Datatype normal_block(const struct layout_geometry *g, MPI_Datatype basic)
{
    const struct block_pattern *p = &g->pattern;
    MPI_Aint extent = (MPI_Aint)p->extent * (MPI_Aint)g->element;
    MPI_Datatype t;
    int displs[NBH_MAX_UNITS], lengths[NBH_MAX_UNITS];
    for (int u = 0; u < p->nunits; u++) {
        displs[u] = (int)p->offset[u];
        lengths[u] = (int)p->length[u];
    }
    switch (g->params.layout) {
    case LAYOUT_tiled:
        MPI_Type_contiguous(lengths[0], basic, &t);
        return resized(t, extent);
    case LAYOUT_block:
        MPI_Type_create_indexed_block(2, lengths[0], displs, basic, &t);
        return resized(t, extent);
    case LAYOUT_bucket:
    case LAYOUT_alternating:
        MPI_Type_indexed(2, lengths, displs, basic, &t);
        return resized(t, extent);
    case LAYOUT_tiled_hetero: {
        MPI_Datatype types[NBH_MAX_UNITS] = {MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_SHORT};
        MPI_Aint bytes[NBH_MAX_UNITS];
        int counts[NBH_MAX_UNITS];
        for (int u = 0; u < NBH_MAX_UNITS; u++) {
            bytes[u] = displs[u];
            counts[u] = (int)g->params.unit;
        }
        MPI_Type_create_struct(NBH_MAX_UNITS, counts, bytes, types, &t);
        return resized(t, extent);
    }
    default:  /* contiguous: the basic type itself */
        return basic;
    }
}

/* Every unit of the c blocks: its displacement in elements and its length. */
static int all_units(const struct layout_geometry *g, int **displs, int **lengths)
{
    const struct block_pattern *p = &g->pattern;
    int n = (int)(g->blocks * p->nunits);
    *displs = malloc(sizeof(int) * (size_t)(n + 1));
    *lengths = malloc(sizeof(int) * (size_t)(n + 1));
    for (long b = 0, i = 0; b < g->blocks; b++) {
        for (int u = 0; u < p->nunits; u++, i++) {
            (*displs)[i] = (int)(b * p->extent + p->offset[u]);
            (*lengths)[i] = (int)p->length[u];
        }
    }
    return n;
}

/* The largest of 16, 8, 4, 2, 1 that divides c: the inner vector's units. */
static int nested_units(long c)
{
    int s = 16;
    while (c % s)
        s /= 2;
    return s;
}

/* One type of all c blocks (count 1), by constructor c. */
static MPI_Datatype whole_static(const struct layout_geometry *g, MPI_Datatype basic, enum type_constructor c)
{
    const struct block_pattern *p = &g->pattern;
    int blocks = (int)g->blocks, a = (int)p->length[0], stride = (int)p->extent;
    MPI_Aint element = (MPI_Aint)g->element, extent = (MPI_Aint)g->neighbor_extent;
    MPI_Datatype t, inner;
    int *displs, *lengths, n;
    switch (c) {
    case TYPE_CONSTRUCTOR_contiguous:
        inner = normal_block(g, basic);
        MPI_Type_contiguous(blocks, inner, &t);
        return inner == basic ? t : consume(t, &inner);
    case TYPE_CONSTRUCTOR_vector:
        MPI_Type_vector(blocks, a, stride, basic, &t);
        break;
    case TYPE_CONSTRUCTOR_hvector:
        MPI_Type_create_hvector(blocks, a, stride * element, basic, &t);
        break;
    case TYPE_CONSTRUCTOR_subarray: {
        int sizes[2] = {blocks, stride}, sub[2] = {blocks, a}, starts[2] = {0, 0};
        MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, basic, &t);
        break;
    }
    case TYPE_CONSTRUCTOR_nested: {
        int s = nested_units(blocks);
        MPI_Type_vector(s, a, stride, basic, &inner);
        MPI_Type_create_hvector(blocks / s, 1, (MPI_Aint)s * stride * element, inner, &t);
        MPI_Type_free(&inner);
        break;
    }
    case TYPE_CONSTRUCTOR_struct: {
        /* The studies' Tiled-struct: two parts of the normal block type. */
        int half = blocks / 2;
        int counts[2] = {half, blocks - half};
        MPI_Aint at[2] = {0, (MPI_Aint)half * stride * element};
        inner = normal_block(g, basic);
        MPI_Datatype types[2] = {inner, inner};
        MPI_Type_create_struct(half ? 2 : 1, half ? counts : counts + 1, at, types, &t);
        if (inner != basic)
            MPI_Type_free(&inner);
        break;
    }
    case TYPE_CONSTRUCTOR_indexed_block:
        n = all_units(g, &displs, &lengths);
        MPI_Type_create_indexed_block(n, a, displs, basic, &t);
        free(displs), free(lengths);
        break;
    case TYPE_CONSTRUCTOR_indexed:
        n = all_units(g, &displs, &lengths);
        MPI_Type_indexed(n, lengths, displs, basic, &t);
        free(displs), free(lengths);
        break;
    default: {  /* hindexed */
        n = all_units(g, &displs, &lengths);
        MPI_Aint *bytes = malloc(sizeof(MPI_Aint) * (size_t)(n + 1));
        for (int i = 0; i < n; i++)
            bytes[i] = displs[i] * element;
        MPI_Type_create_hindexed(n, lengths, bytes, basic, &t);
        free(displs), free(lengths), free(bytes);
        break;
    }
    }
    return resized(t, extent);
}

static void describe_static(const struct layout_geometry *g, MPI_Datatype basic, enum type_constructor c,
                            int index, struct description *d)
{
    d->displacement = (MPI_Aint)index * (MPI_Aint)g->neighbor_extent;
    if (c == layout_normal(g->params.layout)) {  /* the studies' static block, count c */
        d->type = normal_block(g, basic);
        d->count = (int)g->blocks;
    } else {
        d->type = whole_static(g, basic, c);
        d->count = 1;
    }
    d->derived = d->type != basic;
}

/* --- halo faces: from their boxes of runs --- */

struct runs {
    MPI_Aint *at;
    int n;
};

static void collect(size_t offset, size_t length, void *arg)
{
    (void)length;
    struct runs *r = arg;
    r->at[r->n++] = (MPI_Aint)offset;
}

static void describe_face(const struct layout_geometry *g, MPI_Datatype basic, enum type_constructor c,
                          enum side side, int index, struct description *d)
{
    struct run_box box;
    (side == SIDE_SEND ? geometry_send_box : geometry_recv_box)(g, index, &box);
    int dim = index / 2, n = (int)g->n, length = (int)(box.unit_length[0] / g->element);
    d->count = 1;
    d->derived = 1;
    d->displacement = 0;
    if (c == TYPE_CONSTRUCTOR_subarray) {
        int sizes[NBH_MAX_NDIM], sub[NBH_MAX_NDIM], starts[NBH_MAX_NDIM];
        long layer = side == SIDE_SEND ? (index % 2 ? n : 1) : (index % 2 ? n + 1 : 0);
        for (int k = 0; k < g->ndim; k++) {
            sizes[k] = n + 2;
            sub[k] = k == dim ? 1 : n;
            starts[k] = k == dim ? (int)layer : 1;
        }
        MPI_Type_create_subarray(g->ndim, sizes, sub, starts, MPI_ORDER_C, basic, &d->type);
        return;
    }
    if (c == TYPE_CONSTRUCTOR_vector) {  /* a vector of the runs, hvectors outside it */
        d->displacement = (MPI_Aint)box.offset;
        int k = box.nlevels - 1;
        if (k < 0) {
            MPI_Type_vector(1, length, length, basic, &d->type);
            return;
        }
        MPI_Type_vector((int)box.count[k], length, (int)(box.stride[k] / g->element), basic, &d->type);
        for (k--; k >= 0; k--) {
            MPI_Datatype inner = d->type;
            MPI_Type_create_hvector((int)box.count[k], 1, (MPI_Aint)box.stride[k], inner, &d->type);
            MPI_Type_free(&inner);
        }
        return;
    }
    struct runs r = {malloc(sizeof(MPI_Aint) * (box_bytes(&box) / box.unit_length[0] + 1)), 0};
    box_for_each(&box, collect, &r);
    int *counts = malloc(sizeof(int) * (size_t)(r.n + 1));
    for (int i = 0; i < r.n; i++)
        counts[i] = length;
    if (c == TYPE_CONSTRUCTOR_indexed_block) {
        for (int i = 0; i < r.n; i++)
            counts[i] = (int)(r.at[i] / (MPI_Aint)g->element);
        MPI_Type_create_indexed_block(r.n, length, counts, basic, &d->type);
    } else if (c == TYPE_CONSTRUCTOR_hindexed) {
        MPI_Type_create_hindexed(r.n, counts, r.at, basic, &d->type);
    } else {  /* struct: one entry per run */
        MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)(r.n + 1));
        for (int i = 0; i < r.n; i++)
            types[i] = basic;
        MPI_Type_create_struct(r.n, counts, r.at, types, &d->type);
        free(types);
    }
    free(counts);
    free(r.at);
}

/* --- transpose: the column block out, the same block transposed in --- */

static void describe_transpose(const struct layout_geometry *g, MPI_Datatype basic, enum type_constructor c,
                               enum side side, int index, struct description *d)
{
    int b = (int)g->rows, n = (int)g->n;
    MPI_Aint element = (MPI_Aint)g->element, extent = (MPI_Aint)g->neighbor_extent;
    MPI_Datatype t, column;
    d->count = 1;
    d->derived = 1;
    d->displacement = (MPI_Aint)index * extent;
    if (side == SIDE_SEND) {  /* b rows of b elements, n apart */
        if (c == TYPE_CONSTRUCTOR_vector) {
            MPI_Type_vector(b, b, n, basic, &t);
        } else if (c == TYPE_CONSTRUCTOR_hvector) {
            MPI_Type_create_hvector(b, b, n * element, basic, &t);
        } else {
            int sizes[2] = {b, n}, sub[2] = {b, b}, starts[2] = {0, 0};
            MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, basic, &t);
        }
        d->type = resized(t, extent);
        return;
    }
    /* b columns of b elements each, one element apart: the block transposed */
    if (c == TYPE_CONSTRUCTOR_hvector) {  /* the packing study's vector of vectors */
        MPI_Type_vector(b, 1, n, basic, &column);
        MPI_Type_create_hvector(b, 1, element, column, &t);
        MPI_Type_free(&column);
    } else if (c == TYPE_CONSTRUCTOR_vector) {
        MPI_Type_vector(b, 1, n, basic, &column);
        column = resized(column, element);
        MPI_Type_vector(b, 1, 1, column, &t);
        MPI_Type_free(&column);
    } else {
        int sizes[2] = {b, n}, sub[2] = {b, 1}, starts[2] = {0, 0};
        MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, basic, &column);
        column = resized(column, element);
        MPI_Type_contiguous(b, column, &t);
        MPI_Type_free(&column);
    }
    d->type = resized(t, extent);
}

void describe(const struct layout_geometry *g, MPI_Datatype basic, enum type_constructor c, enum side side,
              int index, struct description *d)
{
    if (g->is_static)
        describe_static(g, basic, c, index, d);
    else if (g->params.layout == LAYOUT_halo)
        describe_face(g, basic, c, side, index, d);
    else
        describe_transpose(g, basic, c, side, index, d);
}

void description_free(struct description *d)
{
    if (d->derived && d->type != MPI_DATATYPE_NULL)
        MPI_Type_free(&d->type);
    d->type = MPI_DATATYPE_NULL;
    d->derived = 0;
}
