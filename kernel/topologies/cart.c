/* Cartesian neighborhood: for each dimension the neighbor at -1, then the
 * one at +1 (MPI_PROC_NULL at finite borders), as MPI_Cart_shift gives them.
 * The topology itself is made by MPI_Cart_create; these lists are what that
 * communicator must report, and what p2p exchanges and the checks use. */
#include "topologies/topology.h"

void cart_neighborhood(const struct experiment *e, MPI_Comm base, int round, struct neighborhood *out)
{
    (void)round;  /* nothing drawn: the order is MPI_Cart_shift's */
    int p;
    MPI_Comm_size(base, &p);
    grid_for(e, p, &out->grid);
    const struct grid *g = &out->grid;

    MPI_Comm cart;
    MPI_Cart_create(base, g->ndim, g->dims, g->periods, 0, &cart);
    struct neighbor_lists *l = &out->lists;
    neighbor_lists_alloc(l, 2 * g->ndim, 2 * g->ndim);
    for (int d = 0; d < g->ndim; d++) {
        MPI_Cart_shift(cart, d, 1, &l->sources[2 * d], &l->sources[2 * d + 1]);
        l->destinations[2 * d] = l->sources[2 * d];
        l->destinations[2 * d + 1] = l->sources[2 * d + 1];
    }
    MPI_Comm_free(&cart);
}
