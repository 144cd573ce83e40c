/* Moore neighborhood of radius r: every offset c != 0 with max|c_i| <= r. */
#include <stdlib.h>

#include "topologies/grid.h"

int *moore_offsets(int ndim, int radius, int *count)
{
    return offsets_within(ndim, radius, ndim * radius, count);
}

void moore_neighborhood(const struct experiment *e, MPI_Comm base, int round, struct neighborhood *out)
{
    int count;
    int *offsets = moore_offsets(e->ndim, e->radius, &count);
    grid_neighborhood(e, base, round, offsets, count, out);
    free(offsets);
}
