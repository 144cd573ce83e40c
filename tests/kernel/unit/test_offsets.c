/* Moore and von Neumann offsets, and where offsets land on finite and
 * periodic grids. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "topologies/topology.h"

static int count_of(int *(*offsets)(int, int, int *), int ndim, int radius)
{
    int n;
    free(offsets(ndim, radius, &n));
    return n;
}

static int all_within(int *(*offsets)(int, int, int *), int ndim, int radius, int manhattan)
{
    int n, ok = 1;
    int *o = offsets(ndim, radius, &n);
    for (int k = 0; k < n; k++) {
        int sum = 0, max = 0, nonzero = 0;
        for (int d = 0; d < ndim; d++) {
            int a = abs(o[k * ndim + d]);
            sum += a, max = a > max ? a : max, nonzero |= a != 0;
        }
        ok &= nonzero && (manhattan ? sum <= radius : max <= radius);
    }
    free(o);
    return ok;
}

static long power(long b, int e)
{
    long x = 1;
    while (e--)
        x *= b;
    return x;
}

void test_offsets(void)
{
    for (int ndim = 1; ndim <= 4; ndim++) {
        for (int r = 1; r <= 2; r++) {
            CHECK(count_of(moore_offsets, ndim, r) == power(2 * r + 1, ndim) - 1,
                  "moore ndim %d radius %d has (2r+1)^n - 1 offsets", ndim, r);
            CHECK(all_within(moore_offsets, ndim, r, 0), "moore ndim %d radius %d: 0 < max|c| <= r", ndim, r);
            CHECK(all_within(vneum_offsets, ndim, r, 1), "vneum ndim %d radius %d: 0 < sum|c| <= r", ndim, r);
        }
        CHECK(count_of(vneum_offsets, ndim, 1) == 2 * ndim, "vneum ndim %d radius 1 has 2n offsets", ndim);
        CHECK(count_of(vneum_offsets, ndim, 2) == 2 * ndim * ndim + 2 * ndim,
              "vneum ndim %d radius 2 has 2n^2 + 2n offsets", ndim);
    }
    CHECK(count_of(vneum_offsets, 8, 6) == 40080, "vneum ndim 8 radius 6: 40080 offsets, found without visiting the 13^8 box");

    int n, *o = moore_offsets(2, 1, &n);
    int fmaj[] = {-1, -1, -1, 0, -1, 1, 0, -1, 0, 1, 1, -1, 1, 0, 1, 1};
    CHECK(n == 8 && memcmp(o, fmaj, sizeof(fmaj)) == 0, "moore 2D radius 1 comes out in FMAJ order");
    free(o);

    struct grid g = {.ndim = 2, .dims = {3, 2}, .periods = {0, 1}};
    int target[2];
    CHECK(offset_target(&g, (int[]){0, 0}, (int[]){-1, 0}, +1, target) == 0,
          "an offset leaving a finite dimension is dropped");
    CHECK(offset_target(&g, (int[]){0, 0}, (int[]){-1, 0}, -1, target) == 1 && target[0] == 1 && target[1] == 0,
          "the inverse offset stays inside");
    CHECK(offset_target(&g, (int[]){2, 1}, (int[]){0, 1}, +1, target) == 1 && target[0] == 2 && target[1] == 0,
          "a periodic dimension wraps");
    CHECK(offset_target(&g, (int[]){1, 0}, (int[]){0, 2}, +1, target) == 1 && target[1] == 0,
          "an offset of twice the extent wraps onto the process itself");
    CHECK(offset_target(&g, (int[]){2, 0}, (int[]){1, 0}, +1, target) == 0,
          "the upper border of a finite dimension drops too");
}
