/* Full neighborhood: every other process is a neighbor (self excluded).
 * LINEAR: from the process itself, sources upwards and destinations
 * downwards modulo p. RAND: both lists permuted independently, anew in
 * every round (experiment_round_seed). */
#include "seeds.h"
#include "topologies/topology.h"

void full_lists(int order, int rank, int p, struct rng *rng, int *sources, int *destinations)
{
    for (int i = 0; i < p - 1; i++) {
        sources[i] = (rank + 1 + i) % p;
        destinations[i] = ((rank - 1 - i) % p + p) % p;
    }
    if (order == ORDER_RAND) {
        rng_shuffle(rng, sources, (size_t)(p - 1), sizeof(int));
        rng_shuffle(rng, destinations, (size_t)(p - 1), sizeof(int));
    }
}

void full_neighborhood(const struct experiment *e, MPI_Comm base, int round, struct neighborhood *out)
{
    int p, rank;
    MPI_Comm_size(base, &p);
    MPI_Comm_rank(base, &rank);
    struct rng rng = {experiment_round_seed(e, rank, round)};
    neighbor_lists_alloc(&out->lists, p - 1, p - 1);
    full_lists(e->order, rank, p, &rng, out->lists.sources, out->lists.destinations);
}
