/* The graph files of an input, checked by every process before anything
 * runs (docs/kernel.md, "Graph files"): each file's rows, and each graph
 * experiment's buffers against the memory limit and MPI's int counts. */
#ifndef NBH_GRAPH_INPUTS_H
#define NBH_GRAPH_INPUTS_H

#include <mpi.h>

#include "input.h"

/* Collective over base. Returns 0, or -1 on every process with the first
 * problem (one line naming the file and line) in error. */
int graph_inputs_check(const char *input_path, const struct input *in, const struct input_limits *limits,
                       MPI_Comm base, char *error, size_t size);

#endif
