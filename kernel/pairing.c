#include "pairing.h"

#include <stdlib.h>

struct occurrence {
    int rank;
    int index;
};

static int by_rank_then_index(const void *a, const void *b)
{
    const struct occurrence *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->index > y->index) - (x->index < y->index);
}

/* tags[i] = how often ranks[i] occurred before position i. */
static void occurrence_numbers(const int *ranks, int n, int *tags)
{
    struct occurrence *o = malloc(sizeof(*o) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        o[i] = (struct occurrence){ranks[i], i};
    qsort(o, (size_t)n, sizeof(*o), by_rank_then_index);
    for (int i = 0; i < n; i++)
        tags[o[i].index] = i > 0 && o[i - 1].rank == o[i].rank ? tags[o[i - 1].index] + 1 : 0;
    free(o);
}

void pairing_tags(int cartesian, const struct neighbor_lists *l, int *send_tags, int *recv_tags)
{
    if (cartesian) {
        for (int j = 0; j < l->outdegree; j++)
            send_tags[j] = j;
        for (int k = 0; k < l->indegree; k++)
            recv_tags[k] = k ^ 1;
        return;
    }
    occurrence_numbers(l->destinations, l->outdegree, send_tags);
    occurrence_numbers(l->sources, l->indegree, recv_tags);
}
