/* FMAJ, LMAJ and RAND orderings of grid offsets. */
#include <stdlib.h>
#include <string.h>

#include "seeds.h"
#include "tap.h"
#include "topologies/topology.h"

static int *ordered(int order, int ndim, int radius, uint64_t seed, int *n)
{
    int *o = moore_offsets(ndim, radius, n);
    struct rng rng = {seed};
    order_offsets(order, o, *n, ndim, &rng);
    return o;
}

static int compare_vectors(const void *a, const void *b)
{
    const int *x = a, *y = b;
    for (int d = 0; d < 3; d++)
        if (x[d] != y[d])
            return x[d] < y[d] ? -1 : 1;
    return 0;
}

void test_orders(void)
{
    int n;
    int *o = ordered(ORDER_LMAJ, 2, 1, 0, &n);
    int lmaj[] = {-1, -1, 0, -1, 1, -1, -1, 0, 1, 0, -1, 1, 0, 1, 1, 1};
    CHECK(n == 8 && memcmp(o, lmaj, sizeof(lmaj)) == 0, "LMAJ: last coordinate most significant (2D)");
    free(o);

    int *a = ordered(ORDER_LMAJ, 3, 1, 0, &n);
    int ok = 1;
    for (int k = 1; k < n; k++) {
        const int *x = a + (k - 1) * 3, *y = a + k * 3;
        int cmp = x[2] != y[2] ? x[2] < y[2] : x[1] != y[1] ? x[1] < y[1] : x[0] < y[0];
        ok &= cmp;
    }
    CHECK(ok, "LMAJ: strictly ascending by (c2, c1, c0) in 3D");
    free(a);

    int *fmaj = moore_offsets(3, 2, &n);
    int *resorted = ordered(ORDER_FMAJ, 3, 2, 0, &n);
    struct rng rng = {5};
    order_offsets(ORDER_RAND, resorted, n, 3, &rng);
    order_offsets(ORDER_FMAJ, resorted, n, 3, &rng);
    CHECK(memcmp(fmaj, resorted, sizeof(int) * (size_t)(3 * n)) == 0, "FMAJ sorts any permutation back");
    free(resorted);

    int *r1 = ordered(ORDER_RAND, 3, 2, 11, &n);
    int *r2 = ordered(ORDER_RAND, 3, 2, 11, &n);
    int *r3 = ordered(ORDER_RAND, 3, 2, 12, &n);
    CHECK(memcmp(r1, r2, sizeof(int) * (size_t)(3 * n)) == 0, "RAND is reproducible from its seed");
    CHECK(memcmp(r1, r3, sizeof(int) * (size_t)(3 * n)) != 0, "RAND differs with another seed");
    CHECK(memcmp(r1, fmaj, sizeof(int) * (size_t)(3 * n)) != 0, "RAND is not the FMAJ order");
    qsort(r1, (size_t)n, sizeof(int) * 3, compare_vectors);
    CHECK(memcmp(r1, fmaj, sizeof(int) * (size_t)(3 * n)) == 0, "RAND is a permutation of the offsets");
    free(r1), free(r2), free(r3), free(fmaj);

    CHECK(process_seed(1, 2, 3) == process_seed(1, 2, 3), "a process seed is a function of (seed, id, rank)");
    CHECK(process_seed(1, 2, 3) != process_seed(1, 2, 4) && process_seed(1, 2, 3) != process_seed(1, 3, 3) &&
              process_seed(1, 2, 3) != process_seed(2, 2, 3),
          "every process, experiment and run seed gives another process seed");
}
