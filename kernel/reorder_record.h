/* Whether reorder = 1 changed anything: the study checked by hand whether a
 * library that may renumber processes for a topology ever does. */
#ifndef NBH_REORDER_RECORD_H
#define NBH_REORDER_RECORD_H

#include <mpi.h>

#include "experiment.h"
#include "output.h"

/* Collective on base: counts the processes whose rank in the topology
 * communicator (topology_rank) differs from their rank in base; rank 0
 * writes the count to PREFIX.reorder.csv. */
void reorder_record(MPI_Comm base, int topology_rank, const struct experiment *e, struct output *out);

#endif
