/* Where the processes of a run landed: per host, its ranks and its cores.
 * The archive checks this against the deployment asked for (nodes x
 * processes per node) and marks hosts with more ranks than cores. */
#ifndef NBH_HOST_LAYOUT_H
#define NBH_HOST_LAYOUT_H

#include <mpi.h>

/* Collective on comm. Returns, on rank 0 (NULL elsewhere; free it), the
 * JSON array
 *   [{"name": "n1", "ranks": "0-3,8", "cores": 2, "cores_online": 2}, ...]
 * one object per host name (MPI_Get_processor_name), in order of its
 * lowest rank: ranks as runs of consecutive ranks; cores, the CPUs the
 * ranks on that host may run on (the union of their affinity masks);
 * cores_online, the CPUs the host has online. */
char *host_layout_json(MPI_Comm comm);

#endif
