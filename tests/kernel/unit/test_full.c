/* The Full neighborhood's LINEAR and RAND lists. */
#include <stdlib.h>
#include <string.h>

#include "seeds.h"
#include "tap.h"
#include "topologies/topology.h"

static int ascending(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

void test_full(void)
{
    int sources[4], destinations[4];
    full_lists(ORDER_LINEAR, 2, 5, NULL, sources, destinations);
    CHECK(memcmp(sources, (int[]){3, 4, 0, 1}, sizeof(sources)) == 0, "LINEAR sources go upwards from the process");
    CHECK(memcmp(destinations, (int[]){1, 0, 4, 3}, sizeof(destinations)) == 0,
          "LINEAR destinations go downwards from the process");

    int p = 33, s[32], d[32];
    struct rng rng = {process_seed(9, 1, 4)};
    full_lists(ORDER_RAND, 4, p, &rng, s, d);
    int linear_s[32], linear_d[32];
    full_lists(ORDER_LINEAR, 4, p, NULL, linear_s, linear_d);
    CHECK(memcmp(s, linear_s, sizeof(s)) != 0 && memcmp(d, linear_d, sizeof(d)) != 0,
          "RAND permutes both lists");
    int rel_s[32], rel_d[32];
    for (int i = 0; i < p - 1; i++)
        rel_s[i] = (s[i] - 4 + p) % p, rel_d[i] = (4 - d[i] + p) % p;
    CHECK(memcmp(rel_s, rel_d, sizeof(rel_s)) != 0, "RAND permutes sources and destinations independently");
    qsort(s, 32, sizeof(int), ascending);
    int ok = 1;
    for (int i = 0, want = 0; i < 32; i++, want++) {
        want += want == 4;
        ok &= s[i] == want;
    }
    CHECK(ok, "RAND sources are every other process once, the process itself excluded");
}
