/* von Neumann neighborhood of radius r: every offset c != 0 with
 * sum|c_i| <= r. Radius 1 is the Cartesian neighborhood as a graph. */
#include <stdlib.h>

#include "topologies/grid.h"

int *vneum_offsets(int ndim, int radius, int *count)
{
    return offsets_within(ndim, radius, radius, count);
}

void vneum_neighborhood(const struct experiment *e, MPI_Comm base, int round, struct neighborhood *out)
{
    int count;
    int *offsets = vneum_offsets(e->ndim, e->radius, &count);
    grid_neighborhood(e, base, round, offsets, count, out);
    free(offsets);
}
