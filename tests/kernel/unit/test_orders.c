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

/* RAND orders are drawn anew in every round (seeds.h round_seed): round 1
 * from the process seed itself, each later round from its own; a twin
 * draws under its own id, not its original's. */
static void test_round_orders(void)
{
    CHECK(round_seed(77, 1) == 77, "round 1 draws from the process seed itself (a run of one round as before)");
    int distinct = 1;
    for (int r = 1; r <= 40; r++)
        for (int s = 1; s < r; s++)
            distinct &= round_seed(77, r) != round_seed(77, s);
    CHECK(distinct, "rounds 1..40 draw from 40 different seeds");
    int n, different_rounds = 0, reproducible = 1;
    int *first = ordered(ORDER_RAND, 3, 1, round_seed(process_seed(5, 9, 2), 1), &n);
    for (int r = 2; r <= 10; r++) {
        int *later = ordered(ORDER_RAND, 3, 1, round_seed(process_seed(5, 9, 2), r), &n);
        int *again = ordered(ORDER_RAND, 3, 1, round_seed(process_seed(5, 9, 2), r), &n);
        different_rounds += memcmp(first, later, sizeof(int) * (size_t)(3 * n)) != 0;
        reproducible &= memcmp(later, again, sizeof(int) * (size_t)(3 * n)) == 0;
        free(later), free(again);
    }
    CHECK(reproducible, "a round's RAND order is reproducible from (run seed, id, rank, round)");
    CHECK(different_rounds == 9, "rounds 2..10 each order the 26 Moore offsets otherwise than round 1 (%d of 9)",
          different_rounds);
    free(first);

    struct experiment original, twin;
    memset(&original, 0, sizeof(original));
    original.id = 3, original.seed = 11;
    twin = original;
    twin.id = 8, twin.twin = 1, twin.twin_of = 3;
    int own = 1;
    for (int rank = 0; rank < 16; rank++)
        for (int r = 1; r <= 4; r++)
            own &= experiment_round_seed(&twin, rank, r) != experiment_round_seed(&original, rank, r) &&
                   experiment_round_seed(&twin, rank, r) == round_seed(process_seed(11, 8, rank), r);
    CHECK(own, "a twin draws from its own id's seeds, not its original's");
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
    test_round_orders();
}
