/* The neighborhoods: one file each (cart.c, moore.c, vneum.c, full.c), all
 * behind one interface that builds a process's neighbor lists. */
#ifndef NBH_TOPOLOGY_H
#define NBH_TOPOLOGY_H

#include <mpi.h>

#include "experiment.h"

struct neighbor_lists {
    int indegree;
    int outdegree;
    int *sources;       /* in ranks of the communicator the lists belong to */
    int *destinations;
};

struct grid {
    int ndim;
    int dims[NBH_MAX_NDIM];
    int periods[NBH_MAX_NDIM];  /* the first nfin dimensions are finite */
};

struct neighborhood {
    struct grid grid;            /* grid topologies only */
    struct neighbor_lists lists; /* in ranks of the base communicator */
    /* graph only (NULL elsewhere): the entries of each edge, in list
     * order; the allgather blocks: each source's and this process's
     * largest count (what one block to all destinations must carry). */
    int *source_counts, *destination_counts;
    int *source_blocks;
    int own_block;
};

/* Builds this process's neighborhood for round `round` of experiment e on
 * communicator base: a RAND order is drawn anew in every round, from the
 * process's seed of that round (experiment_round_seed). */
typedef void (*neighborhood_builder)(const struct experiment *e, MPI_Comm base, int round,
                                     struct neighborhood *out);

void cart_neighborhood(const struct experiment *e, MPI_Comm base, int round, struct neighborhood *out);
void moore_neighborhood(const struct experiment *e, MPI_Comm base, int round, struct neighborhood *out);
void vneum_neighborhood(const struct experiment *e, MPI_Comm base, int round, struct neighborhood *out);
void full_neighborhood(const struct experiment *e, MPI_Comm base, int round, struct neighborhood *out);
void graph_neighborhood(const struct experiment *e, MPI_Comm base, int round, struct neighborhood *out);

neighborhood_builder topology_builder(enum topology t);
void neighbor_lists_alloc(struct neighbor_lists *l, int indegree, int outdegree);
void neighbor_lists_free(struct neighbor_lists *l);
void neighborhood_free(struct neighborhood *n);

/* Largest number of sources or destinations any process can have; what
 * input checking needs before anything is allocated. -1 if it exceeds limit. */
long topology_max_degree(const struct experiment *e, int p, long limit);

/* --- pure parts, testable without MPI --- */

/* Grid extents (tuw_dims_create) and periodicity of experiment e for p processes. */
void grid_for(const struct experiment *e, int p, struct grid *g);

/* All offsets c != 0 with max|c_i| <= radius and sum|c_i| <= manhattan_limit,
 * in FMAJ order. Returns a malloc'd array of count*ndim ints. */
int *offsets_within(int ndim, int radius, int manhattan_limit, int *count);
int *moore_offsets(int ndim, int radius, int *count);
int *vneum_offsets(int ndim, int radius, int *count);

/* Where `coords + sign*offset` lies on the grid; 0 if it leaves a finite dimension. */
int offset_target(const struct grid *g, const int *coords, const int *offset, int sign, int *target);

/* Orders the offsets in place: FMAJ, LMAJ, or RAND (using rng). */
struct rng;
void order_offsets(int order, int *offsets, int count, int ndim, struct rng *rng);

/* A graph process's edges in place: GIVEN (file order, as read), HEAVY
 * (count descending, ties in file order) or RAND (using rng). */
struct graph_edge;
void order_graph_edges(int order, struct graph_edge *edges, int n, struct rng *rng);

/* Full neighborhood lists of `rank` among p: LINEAR, or RAND (using rng). */
void full_lists(int order, int rank, int p, struct rng *rng, int *sources, int *destinations);

#endif
