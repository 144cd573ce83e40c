#ifndef NBH_DISSEMINATION_BARRIER_H
#define NBH_DISSEMINATION_BARRIER_H

#include <mpi.h>

/* Tags the kernel keeps for itself; p2p exchanges use tags below these. */
#define NBH_BARRIER_TAG 32767
#define NBH_GATHER_TAG 32766
#define NBH_MAX_EXCHANGE_TAG 32765

/* A dissemination barrier of zero-byte point-to-point messages: every
 * library is synchronised the same way, whatever its MPI_Barrier does.
 * ceil(log2 p) rounds; in round k process r signals r + 2^k. */
void dissemination_barrier(MPI_Comm comm);

#endif
