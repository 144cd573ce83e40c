#include "datatypes/geometry.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "data_buffers.h"

/* tiled_hetero's unit: A chars, ints, doubles and shorts, each followed by
 * a gap to a stride of B of its own type (the studies' order). */
static const int hetero_sizes[NBH_MAX_UNITS] = {1, 4, 8, 2};

int layout_is_static(enum layout l)
{
    return l != LAYOUT_halo && l != LAYOUT_transpose;
}

void layout_pattern(const struct layout_params *l, struct block_pattern *p)
{
    memset(p, 0, sizeof(*p));
    switch (l->layout) {
    case LAYOUT_tiled:
        *p = (struct block_pattern){1, {0}, {l->unit}, l->stride, l->unit};
        break;
    case LAYOUT_block:
        *p = (struct block_pattern){2, {0, l->stride}, {l->unit, l->unit}, l->stride + l->stride2, 2 * l->unit};
        break;
    case LAYOUT_bucket:
        *p = (struct block_pattern){2, {0, l->stride}, {l->unit, l->unit2}, 2 * l->stride, l->unit + l->unit2};
        break;
    case LAYOUT_alternating:
        *p = (struct block_pattern){2, {0, l->stride}, {l->unit, l->unit2}, l->stride + l->stride2,
                                    l->unit + l->unit2};
        break;
    case LAYOUT_tiled_hetero: {
        long at = 0;
        p->nunits = NBH_MAX_UNITS;
        for (int u = 0; u < NBH_MAX_UNITS; u++) {
            p->offset[u] = at;
            p->length[u] = l->unit * hetero_sizes[u];
            p->elements += p->length[u];
            at += l->stride * hetero_sizes[u];
        }
        p->extent = at;
        break;
    }
    default:  /* contiguous: one element at a time */
        *p = (struct block_pattern){1, {0}, {1}, 1, 1};
        break;
    }
}

static long power(long base, int exponent)
{
    long r = 1;
    while (exponent-- > 0)
        r *= base;
    return r;
}

static size_t element_bytes(const struct experiment *e)
{
    return (size_t)datatype_table[e->datatype].size;
}

long layout_derived_msize(const struct experiment *e, int nprocs)
{
    const struct layout_params *l = &e->layout;
    if (l->layout == LAYOUT_halo)
        return power(l->halo_n, e->ndim - 1) * (long)element_bytes(e);
    if (l->layout == LAYOUT_transpose) {
        long b = l->matrix_n / nprocs;
        return b * b * (long)element_bytes(e);
    }
    return -1;
}

void geometry_make(const struct experiment *e, int nprocs, struct layout_geometry *g)
{
    memset(g, 0, sizeof(*g));
    g->params = e->layout;
    g->is_static = layout_is_static(e->layout.layout);
    g->element = e->layout.layout == LAYOUT_tiled_hetero ? 1 : element_bytes(e);
    g->data_bytes = (size_t)e->msize;
    if (g->is_static) {
        layout_pattern(&e->layout, &g->pattern);
        g->blocks = (long)(g->data_bytes / g->element) / g->pattern.elements;
        g->neighbor_extent = (size_t)g->blocks * (size_t)g->pattern.extent * g->element;
    } else if (e->layout.layout == LAYOUT_halo) {
        g->ndim = e->ndim;
        g->n = e->layout.halo_n;
    } else {
        g->n = e->layout.matrix_n;
        g->rows = g->n / nprocs;
        g->neighbor_extent = (size_t)g->rows * g->element;
    }
}

/* The layer `layer` (0..N+1) along dimension dim of the halo array: every
 * interior index along the other dimensions, the last one as the run when
 * it is not dim. */
static void halo_face(const struct layout_geometry *g, int dim, long layer, struct run_box *b)
{
    size_t stride[NBH_MAX_NDIM];
    size_t s = g->element;
    for (int d = g->ndim - 1; d >= 0; d--) {
        stride[d] = s;
        s *= (size_t)(g->n + 2);
    }
    memset(b, 0, sizeof(*b));
    b->offset = (size_t)layer * stride[dim];
    int last = g->ndim - 1;
    for (int d = 0; d < g->ndim; d++) {
        if (d == dim)
            continue;
        b->offset += stride[d];
        if (d == last)
            continue;
        b->count[b->nlevels] = g->n;
        b->stride[b->nlevels++] = stride[d];
    }
    b->nunits = 1;
    b->unit_length[0] = dim == last ? g->element : (size_t)g->n * g->element;
}

/* A static layout's neighbor data: c blocks of the pattern. */
static void static_box(const struct layout_geometry *g, int j, struct run_box *b)
{
    memset(b, 0, sizeof(*b));
    b->offset = (size_t)j * g->neighbor_extent;
    b->nlevels = 1;
    b->count[0] = g->blocks;
    b->stride[0] = (size_t)g->pattern.extent * g->element;
    b->nunits = g->pattern.nunits;
    for (int u = 0; u < b->nunits; u++) {
        b->unit_offset[u] = (size_t)g->pattern.offset[u] * g->element;
        b->unit_length[u] = (size_t)g->pattern.length[u] * g->element;
    }
    if (g->params.layout == LAYOUT_contiguous) {  /* one run, not n of one element */
        b->count[0] = 1;
        b->unit_length[0] = g->data_bytes;
    }
}

void geometry_send_box(const struct layout_geometry *g, int j, struct run_box *b)
{
    if (g->is_static) {
        static_box(g, j, b);
    } else if (g->params.layout == LAYOUT_halo) {
        halo_face(g, j / 2, j % 2 ? g->n : 1, b);
    } else {  /* the b x b column block j of the b x n local rows */
        memset(b, 0, sizeof(*b));
        b->offset = (size_t)j * g->neighbor_extent;
        b->nlevels = 1;
        b->count[0] = g->rows;
        b->stride[0] = (size_t)g->n * g->element;
        b->nunits = 1;
        b->unit_length[0] = (size_t)g->rows * g->element;
    }
}

void geometry_recv_box(const struct layout_geometry *g, int k, struct run_box *b)
{
    if (g->is_static) {
        static_box(g, k, b);
    } else if (g->params.layout == LAYOUT_halo) {
        halo_face(g, k / 2, k % 2 ? g->n + 1 : 0, b);
    } else {  /* column block k, transposed: element (r, c) of the block to row c, column k*b + r */
        memset(b, 0, sizeof(*b));
        b->offset = (size_t)k * g->neighbor_extent;
        b->nlevels = 2;
        b->count[0] = b->count[1] = g->rows;
        b->stride[0] = g->element;
        b->stride[1] = (size_t)g->n * g->element;
        b->nunits = 1;
        b->unit_length[0] = g->element;
    }
}

size_t geometry_buffer_bytes(const struct layout_geometry *g, int nblocks)
{
    if (g->is_static)
        return (size_t)nblocks * g->neighbor_extent;
    if (g->params.layout == LAYOUT_halo)
        return (size_t)power(g->n + 2, g->ndim) * g->element;
    return (size_t)g->rows * (size_t)g->n * g->element;
}

size_t box_bytes(const struct run_box *b)
{
    size_t unit = 0, steps = 1;
    for (int u = 0; u < b->nunits; u++)
        unit += b->unit_length[u];
    for (int k = 0; k < b->nlevels; k++)
        steps *= (size_t)b->count[k];
    return unit * steps;
}

void box_for_each(const struct run_box *b, void (*run)(size_t offset, size_t length, void *arg), void *arg)
{
    long index[NBH_MAX_NDIM] = {0};
    for (int k = 0; k < b->nlevels; k++)
        if (b->count[k] == 0)
            return;
    for (;;) {
        size_t at = b->offset;
        for (int k = 0; k < b->nlevels; k++)
            at += (size_t)index[k] * b->stride[k];
        for (int u = 0; u < b->nunits; u++)
            run(at + b->unit_offset[u], b->unit_length[u], arg);
        int k = b->nlevels - 1;
        while (k >= 0 && ++index[k] == b->count[k])
            index[k--] = 0;
        if (k < 0)
            return;
    }
}

/* --- the input rules --- */

static const char *problem(char *why, size_t size, const char *column, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static const char *problem(char *why, size_t size, const char *column, const char *format, ...)
{
    va_list ap;
    va_start(ap, format);
    vsnprintf(why, size, format, ap);
    va_end(ap);
    return column;
}

/* A stride that must exceed (or, tiled_hetero, reach) its unit. */
static const char *stride_problem(const struct layout_params *l, char *why, size_t size)
{
    const char *name = layout_table[l->layout].name;
    switch (l->layout) {
    case LAYOUT_tiled:
    case LAYOUT_block:
        if (l->stride <= l->unit)
            return problem(why, size, "stride", "%ld is not larger than unit %ld (layout %s needs B%s > A)",
                           l->stride, l->unit, name, l->layout == LAYOUT_block ? "1" : "");
        if (l->layout == LAYOUT_block && l->stride2 <= l->unit)
            return problem(why, size, "stride2", "%ld is not larger than unit %ld (layout block needs B2 > A)",
                           l->stride2, l->unit);
        return NULL;
    case LAYOUT_bucket:
        if (l->stride <= l->unit || l->stride <= l->unit2)
            return problem(why, size, "stride", "%ld is not larger than unit%s %ld (layout bucket needs B > A1 "
                           "and B > A2)", l->stride, l->stride <= l->unit ? "" : "2",
                           l->stride <= l->unit ? l->unit : l->unit2);
        return NULL;
    case LAYOUT_alternating:
        if (l->stride <= l->unit)
            return problem(why, size, "stride", "%ld is not larger than unit %ld (layout alternating needs "
                           "B1 > A1)", l->stride, l->unit);
        if (l->stride2 <= l->unit2)
            return problem(why, size, "stride2", "%ld is not larger than unit2 %ld (layout alternating needs "
                           "B2 > A2)", l->stride2, l->unit2);
        return NULL;
    case LAYOUT_tiled_hetero:
        if (l->stride < l->unit)
            return problem(why, size, "stride", "%ld is smaller than unit %ld (layout tiled_hetero needs B >= A)",
                           l->stride, l->unit);
        return NULL;
    default:
        return NULL;
    }
}

static const char *static_problem(const struct experiment *e, char *why, size_t size)
{
    const struct layout_params *l = &e->layout;
    const char *name = layout_table[l->layout].name;
    if (l->layout == LAYOUT_tiled_hetero && e->datatype != DATATYPE_byte)
        return problem(why, size, "datatype", "layout tiled_hetero mixes char, int, double and short: datatype "
                       "must be byte, not %s", datatype_table[e->datatype].name);
    const char *column = stride_problem(l, why, size);
    if (column)
        return column;
    struct block_pattern p;
    layout_pattern(l, &p);
    size_t element = l->layout == LAYOUT_tiled_hetero ? 1 : element_bytes(e);
    double block = (double)p.elements * (double)element;
    if (e->msize == 0 || (double)e->msize < block || e->msize % (long)block != 0)
        return problem(why, size, "msize", "%ld is not a multiple of the block's bytes (layout %s: %ld %s of "
                       "%zu bytes, %.0f bytes%s)", e->msize, name, p.elements,
                       l->layout == LAYOUT_tiled_hetero ? "bytes" : "elements", element, block,
                       e->msize == 0 ? "; a layout needs at least one block" : "");
    double blocks = (double)e->msize / block;
    if (blocks * (double)p.extent > INT_MAX || blocks * p.nunits > INT_MAX)
        return problem(why, size, "msize", "%ld bytes in layout %s span %.0f elements, more than an MPI count "
                       "or displacement (int) holds", e->msize, name, blocks * (double)p.extent);
    return NULL;
}

/* Whether the operation's family takes its neighbors from the topology. */
static int uses_neighbors(const struct operation_info *o)
{
    return strcmp(o->family, "neighbor") == 0 || strcmp(o->family, "p2p") == 0;
}

const char *layout_problem(const struct experiment *e, int nprocs, char *why, size_t size)
{
    const struct layout_params *l = &e->layout;
    const struct layout_info *info = &layout_table[l->layout];
    const struct operation_info *o = &operation_table[e->op];
    if (e->topology == TOPOLOGY_graph && !layout_is_plain(l)) {
        const char *column = l->layout != LAYOUT_contiguous ? "layout"
                             : l->constructor != TYPE_CONSTRUCTOR_basic ? "type_constructor" : "packing";
        return problem(why, size, column, "topology graph takes only layout contiguous, type_constructor basic "
                       "and packing datatype (its blocks carry the edges' counts); leave them empty");
    }
    if (strcmp(o->family, "node_aware") == 0 && !layout_is_plain(l)) {
        const char *column = l->layout != LAYOUT_contiguous ? "layout"
                             : l->constructor != TYPE_CONSTRUCTOR_basic ? "type_constructor" : "packing";
        return problem(why, size, column, "op %s takes only layout contiguous, type_constructor basic and "
                       "packing datatype (it forwards its blocks as bytes); leave them empty", o->name);
    }
    if (!catalog_list_has(info->constructors, type_constructor_names[l->constructor]))
        return problem(why, size, "type_constructor", "%s cannot describe layout %s (it takes: %s)",
                       type_constructor_names[l->constructor], info->name, info->constructors);
    if (!catalog_list_has(info->packings, packing_names[l->packing]))
        return problem(why, size, "packing", "%s does not apply to layout %s (it takes: %s)",
                       packing_names[l->packing], info->name, info->packings);
    if (l->layout == LAYOUT_halo && l->packing == PACKING_manual_tiled && e->ndim < 3)
        return problem(why, size, "packing", "manual_tiled on a %d-D halo is manual's copy (no face has two "
                       "levels of single elements to tile; 3-D: the faces across the fastest dimension): use "
                       "manual", e->ndim);
    if (*info->ops && !catalog_list_has(info->ops, o->name))
        return problem(why, size, "layout", "%s does not apply to op %s (it needs one of: %s)", info->name, o->name,
                       info->ops);
    if (*info->topologies && uses_neighbors(o) && !catalog_list_has(info->topologies, topology_table[e->topology].name))
        return problem(why, size, "layout", "%s needs topology %s for op %s, not %s", info->name, info->topologies,
                       o->name, topology_table[e->topology].name);
    if (layout_is_static(l->layout))
        return static_problem(e, why, size);
    if (l->layout == LAYOUT_transpose && l->matrix_n % nprocs != 0)
        return problem(why, size, "matrix_n", "%ld is not a multiple of the %d processes (each has n/p rows)",
                       l->matrix_n, nprocs);
    if (l->layout == LAYOUT_halo) {
        double face = 1, array = 1;
        for (int d = 0; d < e->ndim; d++) {
            face *= d ? (double)l->halo_n : 1;
            array *= (double)(l->halo_n + 2);
        }
        if (array > INT_MAX || face * e->ndim > INT_MAX)
            return problem(why, size, "halo_n", "%ld on %d dimensions is %.0f elements, more than an MPI count or "
                           "displacement (int) holds", l->halo_n, e->ndim, array);
    }
    if (l->layout == LAYOUT_transpose && (double)l->matrix_n * (double)(l->matrix_n / nprocs) > INT_MAX)
        return problem(why, size, "matrix_n", "%ld on %d processes is more elements than an MPI count (int) holds",
                       l->matrix_n, nprocs);
    return NULL;
}

double layout_buffer_bytes(const struct experiment *e, long degree, int nprocs)
{
    const struct layout_params *l = &e->layout;
    if (layout_is_plain(l))
        return buffer_bytes(e->op, e->msize, degree, degree, nprocs);
    double packed = l->packing == PACKING_datatype ? 0 : buffer_bytes(e->op, e->msize, degree, degree, nprocs);
    packed += LAYOUT_CHECK_BLOCKS * (double)e->msize;
    double element = (double)element_bytes(e);
    if (l->layout == LAYOUT_halo) {
        double array = element;
        for (int d = 0; d < e->ndim; d++)
            array *= (double)(l->halo_n + 2);
        return 2 * array + packed;
    }
    if (l->layout == LAYOUT_transpose)
        return 2 * (double)l->matrix_n * (double)(l->matrix_n / nprocs) * element + packed;
    struct block_pattern p;
    layout_pattern(l, &p);
    double extent = (double)e->msize / (double)p.elements * (double)p.extent;
    return buffer_bytes(e->op, (long)extent, degree, degree, nprocs) + packed;
}

const char *displacement_problem(const struct experiment *e, long degree, int nprocs, char *why, size_t size)
{
    const struct operation_info *o = &operation_table[e->op];
    const struct layout_params *l = &e->layout;
    int bytes = strcmp(o->family, "global") == 0 && strcmp(o->variant, "w") == 0;
    int elements = (strcmp(o->family, "global") == 0 || strcmp(o->family, "neighbor") == 0) &&
                   strcmp(o->variant, "v") == 0;
    if (e->topology == TOPOLOGY_graph || (!bytes && !elements))
        return NULL;  /* a graph's counts are checked with its file (graph_inputs.c) */
    double blocks = operation_blocks(e->op, degree, degree, nprocs), step;
    if (bytes && l->packing == PACKING_datatype && !layout_is_plain(l)) {
        struct layout_geometry g;  /* a block's place in the layout's buffer */
        geometry_make(e, nprocs, &g);
        step = (double)(g.is_static || l->layout == LAYOUT_transpose ? g.neighbor_extent : geometry_buffer_bytes(&g, 1));
    } else if (bytes || l->packing == PACKING_mpi_pack) {
        step = (double)e->msize;  /* contiguous blocks of msize bytes (MPI_PACKED: counted in bytes) */
    } else {
        step = (double)(e->msize / datatype_table[e->datatype].size);
    }
    double last = (blocks - 1) * step;
    if (last <= INT_MAX)
        return NULL;
    int derived = strcmp(layout_table[l->layout].msize, "derived") == 0;
    return problem(why, size, derived ? layout_table[l->layout].parameters : "msize",
                   "%ld bytes per neighbor put the last of %.0f blocks %.0f %s into the buffer, more than op %s's "
                   "int displacements hold (%d)", e->msize, blocks, last, bytes ? "bytes" : "elements", o->name,
                   INT_MAX);
}
