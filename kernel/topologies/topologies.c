/* The topology table: registry name -> neighborhood builder, and what all
 * neighborhoods share (list storage, degree bounds). */
#include <stdlib.h>

#include "topologies/topology.h"

#define NBH_BUILDER_ROW(name, ...) [TOPOLOGY_##name] = name##_neighborhood,
static const neighborhood_builder builders[N_TOPOLOGIES] = {NBH_TOPOLOGIES(NBH_BUILDER_ROW)};

neighborhood_builder topology_builder(enum topology t)
{
    return builders[t];
}

void neighbor_lists_alloc(struct neighbor_lists *l, int indegree, int outdegree)
{
    l->indegree = indegree;
    l->outdegree = outdegree;
    /* +1: never a zero-sized allocation, and MPI gets a valid pointer. */
    l->sources = malloc(sizeof(int) * (size_t)(indegree + 1));
    l->destinations = malloc(sizeof(int) * (size_t)(outdegree + 1));
}

void neighbor_lists_free(struct neighbor_lists *l)
{
    free(l->sources);
    free(l->destinations);
    l->sources = l->destinations = NULL;
    l->indegree = l->outdegree = 0;
}

void neighborhood_free(struct neighborhood *n)
{
    neighbor_lists_free(&n->lists);
    free(n->source_counts);
    free(n->destination_counts);
    free(n->source_blocks);
    n->source_counts = n->destination_counts = n->source_blocks = NULL;
}

/* Number of integer vectors with sum|c_i| <= r in n dimensions:
 * sum_k 2^k C(n,k) C(r,k). */
static long manhattan_ball(int n, int r, long limit)
{
    long total = 0, cn = 1, cr = 1, pow2 = 1;
    for (int k = 0; k <= n && k <= r; k++) {
        if (k > 0) {
            cn = cn * (n - k + 1) / k;
            cr = cr * (r - k + 1) / k;
            pow2 *= 2;
        }
        if (cr > limit || pow2 * cn > limit / (cr ? cr : 1))
            return -1;
        total += pow2 * cn * cr;
        if (total > limit)
            return -1;
    }
    return total;
}

long topology_max_degree(const struct experiment *e, int p, long limit)
{
    long box = 1;
    switch (e->topology) {
    case TOPOLOGY_cart:
        return 2L * e->ndim;
    case TOPOLOGY_moore:
        for (int d = 0; d < e->ndim; d++) {
            if (box > (limit + 1) / (2L * e->radius + 1))
                return -1;
            box *= 2L * e->radius + 1;
        }
        return box - 1 > limit ? -1 : box - 1;
    case TOPOLOGY_vneum: {
        long ball = manhattan_ball(e->ndim, e->radius, limit + 1);
        return ball < 0 || ball - 1 > limit ? -1 : ball - 1;
    }
    case TOPOLOGY_full:
        return p - 1L > limit ? -1 : p - 1L;
    case TOPOLOGY_graph:  /* known once the file is read (graph_inputs.c) */
        return 0;
    default:
        return -1;
    }
}
