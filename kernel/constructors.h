/* The topology constructors, and the neighbor lists a communicator reports. */
#ifndef NBH_CONSTRUCTORS_H
#define NBH_CONSTRUCTORS_H

#include "topologies/topology.h"

/* Calls experiment e's constructor on base with the prepared neighborhood. */
void topology_comm_create(const struct experiment *e, MPI_Comm base, const struct neighborhood *n,
                          MPI_Comm *out);

/* The lists the library reports for comm (MPI_Cart_shift on a Cartesian
 * communicator, MPI_Dist_graph_neighbors on a distributed graph). */
void comm_neighbor_lists(MPI_Comm comm, struct neighbor_lists *out);

/* `in`, given in ranks of `from`, in ranks of `to` (same processes). */
void translate_lists(MPI_Comm from, MPI_Comm to, const struct neighbor_lists *in,
                     struct neighbor_lists *out);

int comm_is_cartesian(MPI_Comm comm);

#endif
