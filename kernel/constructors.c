/* One function per constructor of registry/constructors.csv. */
#include "constructors.h"

#include <stdlib.h>

#include "mpi_sentinels.h"

typedef void (*constructor_fn)(const struct experiment *e, MPI_Comm base,
                               const struct neighborhood *n, MPI_Comm *out);

static void construct_cart_create(const struct experiment *e, MPI_Comm base,
                                  const struct neighborhood *n, MPI_Comm *out)
{
    MPI_Cart_create(base, n->grid.ndim, n->grid.dims, n->grid.periods, e->reorder, out);
}

/* weights 1 (graph only): the edge counts as edge weights. */
static int *weights_of(const struct experiment *e, int *counts)
{
    return e->weights && counts ? counts : MPI_UNWEIGHTED;
}

static void construct_dist_graph_adjacent(const struct experiment *e, MPI_Comm base,
                                          const struct neighborhood *n, MPI_Comm *out)
{
    const struct neighbor_lists *l = &n->lists;
    MPI_Dist_graph_create_adjacent(base, l->indegree, l->sources, weights_of(e, n->source_counts),
                                   l->outdegree, l->destinations, weights_of(e, n->destination_counts),
                                   MPI_INFO_NULL, e->reorder, out);
}

/* Each process passes only its own destinations; the library works out
 * and orders everyone's sources. */
static void construct_dist_graph(const struct experiment *e, MPI_Comm base,
                                 const struct neighborhood *n, MPI_Comm *out)
{
    int rank;
    MPI_Comm_rank(base, &rank);
    int degree = n->lists.outdegree;
    MPI_Dist_graph_create(base, 1, &rank, &degree, n->lists.destinations,
                          weights_of(e, n->destination_counts), MPI_INFO_NULL, e->reorder, out);
}

#define NBH_CONSTRUCTOR_ROW(name) [CONSTRUCTOR_##name] = construct_##name,
static const constructor_fn constructors[N_CONSTRUCTORS] = {NBH_CONSTRUCTORS(NBH_CONSTRUCTOR_ROW)};

void topology_comm_create(const struct experiment *e, MPI_Comm base, const struct neighborhood *n,
                          MPI_Comm *out)
{
    constructors[e->constructor](e, base, n, out);
}

int comm_is_cartesian(MPI_Comm comm)
{
    int kind;
    MPI_Topo_test(comm, &kind);
    return kind == MPI_CART;
}

void comm_neighbor_lists(MPI_Comm comm, struct neighbor_lists *out)
{
    if (comm_is_cartesian(comm)) {
        int ndim;
        MPI_Cartdim_get(comm, &ndim);
        neighbor_lists_alloc(out, 2 * ndim, 2 * ndim);
        for (int d = 0; d < ndim; d++) {
            MPI_Cart_shift(comm, d, 1, &out->sources[2 * d], &out->sources[2 * d + 1]);
            out->destinations[2 * d] = out->sources[2 * d];
            out->destinations[2 * d + 1] = out->sources[2 * d + 1];
        }
        return;
    }
    int indegree, outdegree, weighted;
    MPI_Dist_graph_neighbors_count(comm, &indegree, &outdegree, &weighted);
    neighbor_lists_alloc(out, indegree, outdegree);
    /* A weighted graph gets arrays for its weights (MPI_UNWEIGHTED is for
     * unweighted ones); the counts are matched by edge (edge_counts.c). */
    int *in_weights = weighted ? malloc(sizeof(int) * (size_t)(indegree + 1)) : MPI_UNWEIGHTED;
    int *out_weights = weighted ? malloc(sizeof(int) * (size_t)(outdegree + 1)) : MPI_UNWEIGHTED;
    MPI_Dist_graph_neighbors(comm, indegree, out->sources, in_weights, outdegree, out->destinations,
                             out_weights);
    if (weighted) {
        free(in_weights);
        free(out_weights);
    }
}

void translate_lists(MPI_Comm from, MPI_Comm to, const struct neighbor_lists *in,
                     struct neighbor_lists *out)
{
    MPI_Group gfrom, gto;
    MPI_Comm_group(from, &gfrom);
    MPI_Comm_group(to, &gto);
    neighbor_lists_alloc(out, in->indegree, in->outdegree);
    MPI_Group_translate_ranks(gfrom, in->indegree, in->sources, gto, out->sources);
    MPI_Group_translate_ranks(gfrom, in->outdegree, in->destinations, gto, out->destinations);
    MPI_Group_free(&gfrom);
    MPI_Group_free(&gto);
}
