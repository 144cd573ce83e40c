/* tuw_dims_create: hand-checked cases, then agreement with a brute-force
 * search over all ordered factor vectors for every p <= 240, ndim <= 4. */
#include <string.h>

#include "tap.h"
#include "topologies/dims.h"

static int dims_equal(int p, int ndim, const int *want)
{
    int got[8];
    return tuw_dims_create(p, ndim, got) == 0 && memcmp(got, want, sizeof(int) * (size_t)ndim) == 0;
}

struct brute {
    int p, ndim, current[8], best[8], best_spread;
};

static int lexicographically_smaller(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

/* Every ordered vector of ndim factors; keep the best non-increasing one. */
static void brute_force(struct brute *b, int depth, int q)
{
    if (depth == b->ndim) {
        if (q != 1)
            return;
        for (int i = 1; i < b->ndim; i++)
            if (b->current[i] > b->current[i - 1])
                return;
        int spread = b->current[0] - b->current[b->ndim - 1];
        if (b->best_spread < 0 || spread < b->best_spread ||
            (spread == b->best_spread && lexicographically_smaller(b->current, b->best, b->ndim))) {
            b->best_spread = spread;
            memcpy(b->best, b->current, sizeof(int) * (size_t)b->ndim);
        }
        return;
    }
    for (int d = 1; d <= q; d++) {
        if (q % d)
            continue;
        b->current[depth] = d;
        brute_force(b, depth + 1, q / d);
    }
}

void test_dims(void)
{
    CHECK(dims_equal(72, 2, (int[]){9, 8}), "dims 72 2 = 9 8");
    CHECK(dims_equal(100, 3, (int[]){5, 5, 4}), "dims 100 3 = 5 5 4");
    CHECK(dims_equal(12, 2, (int[]){4, 3}), "dims 12 2 = 4 3");
    CHECK(dims_equal(16, 2, (int[]){4, 4}), "dims 16 2 = 4 4");
    CHECK(dims_equal(60, 3, (int[]){5, 4, 3}), "dims 60 3 = 5 4 3");
    CHECK(dims_equal(7, 2, (int[]){7, 1}), "dims of a prime: 7 2 = 7 1");
    CHECK(dims_equal(13, 3, (int[]){13, 1, 1}), "dims of a prime: 13 3 = 13 1 1");
    CHECK(dims_equal(999983, 4, (int[]){999983, 1, 1, 1}), "dims of a large prime: 999983 4");
    CHECK(dims_equal(1, 1, (int[]){1}), "dims 1 1 = 1");
    CHECK(dims_equal(1, 4, (int[]){1, 1, 1, 1}), "dims 1 4 = 1 1 1 1");
    CHECK(dims_equal(8, 5, (int[]){2, 2, 2, 1, 1}), "ndim above the prime factors: 8 5 = 2 2 2 1 1");
    CHECK(dims_equal(6, 4, (int[]){3, 2, 1, 1}), "ndim above the prime factors: 6 4 = 3 2 1 1");
    CHECK(dims_equal(160, 1, (int[]){160}), "one dimension: 160 1 = 160");
    CHECK(dims_equal(560, 3, (int[]){10, 8, 7}), "560 processes (35x16) in 3D = 10 8 7");
    CHECK(dims_equal(1000000, 8, (int[]){8, 8, 5, 5, 5, 5, 5, 5}), "dims 10^6 8 = 8 8 5 5 5 5 5 5");
    CHECK(dims_equal(720720, 8, (int[]){13, 11, 7, 5, 4, 4, 3, 3}), "dims 720720 8 = 13 11 7 5 4 4 3 3");
    CHECK(dims_equal(4096, 8, (int[]){4, 4, 4, 4, 2, 2, 2, 2}), "dims 4096 8 = 4 4 4 4 2 2 2 2");
    CHECK(dims_equal(320, 4, (int[]){5, 4, 4, 4}), "dims 320 4 = 5 4 4 4");
    int out[8];
    CHECK(tuw_dims_create(0, 2, out) == -1, "p = 0 is refused");
    CHECK(tuw_dims_create(4, 9, out) == -1, "ndim = 9 is refused");

    int mismatches = 0;
    char first[128] = "";
    for (int ndim = 1; ndim <= 4; ndim++) {
        for (int p = 1; p <= 240; p++) {
            struct brute b = {.p = p, .ndim = ndim, .best_spread = -1};
            brute_force(&b, 0, p);
            if (!dims_equal(p, ndim, b.best)) {
                if (!mismatches++)
                    snprintf(first, sizeof(first), " (first: p=%d ndim=%d)", p, ndim);
            }
        }
    }
    CHECK(mismatches == 0, "agrees with brute force for p <= 240, ndim <= 4%s", first);
}
