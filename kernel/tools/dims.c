/* nbh-dims P NDIM: prints tuw_dims_create(P, NDIM), e.g. "4 3" for 12 2. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "experiment.h"
#include "topologies/dims.h"

static int parse_positive(const char *s, long max, const char *what, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end || errno || v < 1 || v > max) {
        fprintf(stderr, "nbh-dims: %s '%s' must be an integer in 1..%ld\n", what, s, max);
        return -1;
    }
    *out = v;
    return 0;
}

int main(int argc, char **argv)
{
    long p, ndim;
    if (argc != 3) {
        fprintf(stderr, "usage: nbh-dims P NDIM\n");
        return 2;
    }
    if (parse_positive(argv[1], 2147483647L, "P", &p) || parse_positive(argv[2], NBH_MAX_NDIM, "NDIM", &ndim))
        return 2;
    int dims[NBH_MAX_NDIM];
    tuw_dims_create((int)p, (int)ndim, dims);
    for (int d = 0; d < ndim; d++)
        printf(d ? " %d" : "%d", dims[d]);
    printf("\n");
    return 0;
}
