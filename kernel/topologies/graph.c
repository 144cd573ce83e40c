/* Graph: an irregular process graph from a graph file (graph.h). GIVEN:
 * the file's order; HEAVY: heaviest edge first, ties in file order; RAND:
 * sources and destinations permuted independently with the process's seed
 * of the round (experiment_round_seed: anew in every round). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seeds.h"
#include "topologies/graph.h"
#include "topologies/topology.h"

static int heaviest_first(const void *a, const void *b)
{
    const struct graph_edge *x = a, *y = b;
    if (x->count != y->count)
        return (x->count < y->count) - (x->count > y->count);
    return (x->line > y->line) - (x->line < y->line);
}

void order_graph_edges(int order, struct graph_edge *edges, int n, struct rng *rng)
{
    if (order == ORDER_HEAVY)
        qsort(edges, (size_t)n, sizeof(*edges), heaviest_first);
    else if (order == ORDER_RAND)
        rng_shuffle(rng, edges, (size_t)n, sizeof(*edges));
}

static void split(const struct graph_edge *edges, int n, int *ranks, int *counts)
{
    for (int i = 0; i < n; i++) {
        ranks[i] = edges[i].rank;
        counts[i] = edges[i].count;
    }
}

/* The file was checked before anything ran (graph_inputs.c); one that
 * changed since is stopped here rather than measured. */
static void stop(MPI_Comm base, const char *message)
{
    fprintf(stderr, "nbh-kernel: %s (the graph file changed during the run?)\n", message);
    MPI_Abort(base, 2);
}

void graph_neighborhood(const struct experiment *e, MPI_Comm base, int round, struct neighborhood *out)
{
    int p, rank;
    MPI_Comm_size(base, &p);
    MPI_Comm_rank(base, &rank);
    struct graph_rows rows;
    char error[1024];
    if (graph_read(e->graph, rank, p, NBH_LIMIT_MAX_DEGREE, &rows, error, sizeof(error)) != 0)
        stop(base, error);
    struct rng rng = {experiment_round_seed(e, rank, round)};
    order_graph_edges(e->order, rows.sources, rows.indegree, &rng);
    order_graph_edges(e->order, rows.destinations, rows.outdegree, &rng);

    neighbor_lists_alloc(&out->lists, rows.indegree, rows.outdegree);
    out->source_counts = malloc(sizeof(int) * (size_t)(rows.indegree + 1));
    out->destination_counts = malloc(sizeof(int) * (size_t)(rows.outdegree + 1));
    out->source_blocks = malloc(sizeof(int) * (size_t)(rows.indegree + 1));
    split(rows.sources, rows.indegree, out->lists.sources, out->source_counts);
    split(rows.destinations, rows.outdegree, out->lists.destinations, out->destination_counts);
    out->own_block = 0;
    for (int j = 0; j < rows.outdegree; j++)
        if (rows.destinations[j].count > out->own_block)
            out->own_block = rows.destinations[j].count;
    if (graph_largest_out_counts(e->graph, out->lists.sources, rows.indegree, out->source_blocks) != 0)
        stop(base, "cannot read the graph file again");
    graph_rows_free(&rows);
}
