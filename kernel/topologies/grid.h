/* Shared by the grid neighborhoods (moore.c, vneum.c). */
#ifndef NBH_GRID_H
#define NBH_GRID_H

#include "topologies/topology.h"

/* Orders the offsets for this process (RAND: drawn for round `round`) and
 * turns them into neighbor lists on the grid of experiment e. */
void grid_neighborhood(const struct experiment *e, MPI_Comm base, int round, int *offsets, int count,
                       struct neighborhood *out);

#endif
