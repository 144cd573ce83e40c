/* tuw_dims_create: an exhaustive search over the non-increasing factor
 * vectors of p, pruned so that p up to 10^6 and ndim up to 8 take well under
 * a millisecond. MPI_Dims_create is not used: its answers differ between
 * libraries, and the grid must be the same whatever library is measured. */
#include "topologies/dims.h"

#include <string.h>

#include "experiment.h"

struct search {
    int ndim;
    int divisors[2048];  /* divisors of p, ascending; p <= 2^31 has at most 1536 */
    int ndivisors;
    int current[NBH_MAX_NDIM];
    int best[NBH_MAX_NDIM];
    int best_spread;     /* -1 while nothing was found */
};

static int lexicographically_smaller(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

/* Whether d^k >= q, without overflow. */
static int power_reaches(long d, int k, long q)
{
    long x = 1;
    for (int i = 0; i < k; i++) {
        x *= d;
        if (x >= q)
            return 1;
    }
    return x >= q;
}

/* Choose factor `depth` (<= the previous one) of the remaining product q. */
static void search_factors(struct search *s, int depth, long q, int previous)
{
    int left = s->ndim - depth;
    if (left == 1) {
        if (q > previous)
            return;
        s->current[depth] = (int)q;
        int spread = s->current[0] - (int)q;
        if (s->best_spread < 0 || spread < s->best_spread ||
            (spread == s->best_spread && lexicographically_smaller(s->current, s->best, s->ndim))) {
            s->best_spread = spread;
            memcpy(s->best, s->current, sizeof(int) * (size_t)s->ndim);
        }
        return;
    }
    for (int i = s->ndivisors - 1; i >= 0; i--) {
        int d = s->divisors[i];
        if (d > previous || q % d != 0)
            continue;
        /* d is the largest of the `left` remaining factors, so d^left >= q. */
        if (!power_reaches(d, left, q))
            break;
        /* The smallest factor is at most d, so the spread is at least
         * first - d, and only grows for the smaller d still to come. */
        int first = depth == 0 ? d : s->current[0];
        if (s->best_spread >= 0 && first - d > s->best_spread)
            break;
        s->current[depth] = d;
        search_factors(s, depth + 1, q / d, d);
    }
}

int tuw_dims_create(int p, int ndim, int *dims)
{
    if (p < 1 || ndim < 1 || ndim > NBH_MAX_NDIM)
        return -1;
    struct search s = {.ndim = ndim, .best_spread = -1};
    int small[1024], nsmall = 0, large[1024], nlarge = 0;
    for (long d = 1; d * d <= p; d++) {
        if (p % d == 0) {
            small[nsmall++] = (int)d;
            if (d * d != p)
                large[nlarge++] = (int)(p / d);
        }
    }
    for (int i = 0; i < nsmall; i++)
        s.divisors[s.ndivisors++] = small[i];
    for (int i = nlarge - 1; i >= 0; i--)
        s.divisors[s.ndivisors++] = large[i];
    search_factors(&s, 0, p, p);
    memcpy(dims, s.best, sizeof(int) * (size_t)ndim);
    return 0;
}
