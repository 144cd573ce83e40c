/* What the grid neighborhoods (Moore, von Neumann) share: the grid, the
 * offset box, and turning offsets into ranks on an intermediate Cartesian
 * communicator (always reorder = 0: its ranks are those of base). */
#include <stdlib.h>
#include <string.h>

#include "topologies/grid.h"

#include "topologies/dims.h"
#include "seeds.h"

void grid_for(const struct experiment *e, int p, struct grid *g)
{
    g->ndim = e->ndim;
    tuw_dims_create(p, e->ndim, g->dims);
    for (int d = 0; d < e->ndim; d++)
        g->periods[d] = d >= e->nfin;
}

/* Depth-first over the coordinates, first coordinate outermost, so the
 * offsets come out in FMAJ order; `budget` is what is left of the allowed
 * sum |c_i|, which prunes von Neumann balls without visiting the whole box. */
static void enumerate_offsets(int d, int ndim, int radius, int budget, int nonzero, int *c,
                              int *out, int *n)
{
    if (d == ndim) {
        if (nonzero) {
            if (out)
                memcpy(out + (size_t)*n * ndim, c, sizeof(int) * (size_t)ndim);
            ++*n;
        }
        return;
    }
    for (int x = -radius; x <= radius; x++) {
        if (abs(x) > budget)
            continue;
        c[d] = x;
        enumerate_offsets(d + 1, ndim, radius, budget - abs(x), nonzero || x, c, out, n);
    }
}

int *offsets_within(int ndim, int radius, int manhattan_limit, int *count)
{
    int c[NBH_MAX_NDIM], n = 0;
    enumerate_offsets(0, ndim, radius, manhattan_limit, 0, c, NULL, &n);
    int *offsets = malloc(sizeof(int) * ((size_t)n * ndim + 1));
    *count = 0;
    enumerate_offsets(0, ndim, radius, manhattan_limit, 0, c, offsets, count);
    return offsets;
}

int offset_target(const struct grid *g, const int *coords, const int *offset, int sign, int *target)
{
    for (int d = 0; d < g->ndim; d++) {
        int x = coords[d] + sign * offset[d];
        if (!g->periods[d] && (x < 0 || x >= g->dims[d]))
            return 0;
        x %= g->dims[d];
        target[d] = x < 0 ? x + g->dims[d] : x;
    }
    return 1;
}

/* Neighbor lists from offsets: destination own + c, source own - c, both in
 * the order of the (ordered) offsets; offsets leaving a finite dimension
 * are dropped, wrapped duplicates are kept. */
void grid_neighborhood(const struct experiment *e, MPI_Comm base, int round, int *offsets, int count,
                       struct neighborhood *out)
{
    int p, rank;
    MPI_Comm_size(base, &p);
    MPI_Comm_rank(base, &rank);
    grid_for(e, p, &out->grid);
    const struct grid *g = &out->grid;

    MPI_Comm cart;
    MPI_Cart_create(base, g->ndim, g->dims, g->periods, 0, &cart);
    int coords[NBH_MAX_NDIM], target[NBH_MAX_NDIM];
    MPI_Cart_coords(cart, rank, g->ndim, coords);

    struct rng rng = {experiment_round_seed(e, rank, round)};
    order_offsets(e->order, offsets, count, g->ndim, &rng);

    struct neighbor_lists *l = &out->lists;
    neighbor_lists_alloc(l, count, count);
    l->indegree = l->outdegree = 0;
    for (int k = 0; k < count; k++) {
        const int *c = offsets + (size_t)k * g->ndim;
        if (offset_target(g, coords, c, +1, target))
            MPI_Cart_rank(cart, target, &l->destinations[l->outdegree++]);
        if (offset_target(g, coords, c, -1, target))
            MPI_Cart_rank(cart, target, &l->sources[l->indegree++]);
    }
    MPI_Comm_free(&cart);
}
