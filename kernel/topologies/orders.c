/* Orderings of a grid neighborhood's offsets, applied before they become
 * ranks. FMAJ: ascending, first coordinate most significant. LMAJ:
 * ascending, last coordinate most significant. RAND: a permutation drawn
 * from the process's own seed of the round (new in every round). */
#include <stdlib.h>
#include <string.h>

#include "seeds.h"
#include "topologies/topology.h"

struct keyed {
    long long key;
    int index;
};

static int by_key(const void *a, const void *b)
{
    long long x = ((const struct keyed *)a)->key, y = ((const struct keyed *)b)->key;
    return (x > y) - (x < y);
}

/* Offsets are unique and bounded by the radius, so each one's place in the
 * order is a number in base (2r+1), most significant coordinate first. */
static void sort_offsets(int *offsets, int count, int ndim, int first_most_significant)
{
    int radius = 0;
    for (int i = 0; i < count * ndim; i++)
        radius = abs(offsets[i]) > radius ? abs(offsets[i]) : radius;
    struct keyed *keys = malloc(sizeof(*keys) * (size_t)(count + 1));
    for (int k = 0; k < count; k++) {
        long long key = 0;
        for (int j = 0; j < ndim; j++) {
            int d = first_most_significant ? j : ndim - 1 - j;
            key = key * (2 * radius + 1) + offsets[k * ndim + d] + radius;
        }
        keys[k] = (struct keyed){key, k};
    }
    qsort(keys, (size_t)count, sizeof(*keys), by_key);
    int *sorted = malloc(sizeof(int) * (size_t)(count * ndim + 1));
    for (int k = 0; k < count; k++)
        memcpy(sorted + k * ndim, offsets + keys[k].index * ndim, sizeof(int) * (size_t)ndim);
    memcpy(offsets, sorted, sizeof(int) * (size_t)(count * ndim));
    free(sorted);
    free(keys);
}

void order_offsets(int order, int *offsets, int count, int ndim, struct rng *rng)
{
    switch (order) {
    case ORDER_FMAJ:
        sort_offsets(offsets, count, ndim, 1);
        break;
    case ORDER_LMAJ:
        sort_offsets(offsets, count, ndim, 0);
        break;
    case ORDER_RAND:
        rng_shuffle(rng, offsets, (size_t)count, sizeof(int) * (size_t)ndim);
        break;
    default:
        break;  /* input checking admits no other order for a grid */
    }
}
