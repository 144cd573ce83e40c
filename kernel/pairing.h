/* Which sent block lands in which receive slot (MPI-4.1 section 8.6). */
#ifndef NBH_PAIRING_H
#define NBH_PAIRING_H

#include "topologies/topology.h"

/* Names every edge so that a receive slot can tell which block it must get:
 * block j is sent under send_tags[j]; slot k must receive the block named
 * recv_tags[k] by its source. On a Cartesian communicator block s of the
 * sender lands in slot s^1 of the receiver (also when a periodic dimension
 * of size 1 or 2 makes both neighbors the same process). On a distributed
 * graph the k-th edge to a process pairs with the k-th edge from it. The
 * hand-written p2p exchanges use these names as MPI tags. */
void pairing_tags(int cartesian, const struct neighbor_lists *l, int *send_tags, int *recv_tags);

#endif
