#include "edge_counts.h"

#include <stdlib.h>

#include "constructors.h"
#include "pairing.h"

struct keyed_edge {
    int rank;
    int tag;    /* occurrence number among edges to the same process */
    int value;
};

static int by_rank_then_tag(const void *a, const void *b)
{
    const struct keyed_edge *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->tag > y->tag) - (x->tag < y->tag);
}

/* out[i] = the value of the computed edge that reported edge i is. */
static void match(const int *computed, const int *computed_tags, const int *values, int n,
                  const int *reported, const int *reported_tags, int m, int *out)
{
    struct keyed_edge *keys = malloc(sizeof(*keys) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        keys[i] = (struct keyed_edge){computed[i], computed_tags[i], values[i]};
    qsort(keys, (size_t)n, sizeof(*keys), by_rank_then_tag);
    for (int i = 0; i < m; i++) {
        struct keyed_edge key = {reported[i], reported_tags[i], 0};
        const struct keyed_edge *hit = bsearch(&key, keys, (size_t)n, sizeof(*keys), by_rank_then_tag);
        out[i] = hit ? hit->value : 1;
    }
    free(keys);
}

static int *ints(int n)
{
    return malloc(sizeof(int) * (size_t)(n + 1));
}

void edge_counts_match(struct run_context *ctx, MPI_Comm topo)
{
    const struct neighborhood *hood = &ctx->hood;
    if (!hood->source_counts)
        return;
    struct neighbor_lists computed;
    translate_lists(ctx->base, topo, &hood->lists, &computed);
    const struct neighbor_lists *reported = &ctx->lists;
    int *computed_out = ints(computed.outdegree), *computed_in = ints(computed.indegree);
    int *reported_out = ints(reported->outdegree), *reported_in = ints(reported->indegree);
    pairing_tags(0, &computed, computed_out, computed_in);
    pairing_tags(0, reported, reported_out, reported_in);
    ctx->edge_out = ints(reported->outdegree);
    ctx->edge_in = ints(reported->indegree);
    ctx->block_in = ints(reported->indegree);
    match(computed.destinations, computed_out, hood->destination_counts, computed.outdegree,
          reported->destinations, reported_out, reported->outdegree, ctx->edge_out);
    match(computed.sources, computed_in, hood->source_counts, computed.indegree, reported->sources,
          reported_in, reported->indegree, ctx->edge_in);
    match(computed.sources, computed_in, hood->source_blocks, computed.indegree, reported->sources,
          reported_in, reported->indegree, ctx->block_in);
    ctx->block_out = hood->own_block;
    free(computed_out);
    free(computed_in);
    free(reported_out);
    free(reported_in);
    neighbor_lists_free(&computed);
}

void edge_counts_free(struct run_context *ctx)
{
    free(ctx->edge_out);
    free(ctx->edge_in);
    free(ctx->block_in);
    ctx->edge_out = ctx->edge_in = ctx->block_in = NULL;
}
