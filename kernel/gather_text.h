#ifndef NBH_GATHER_TEXT_H
#define NBH_GATHER_TEXT_H

#include <mpi.h>
#include <stddef.h>
#include "whole_output.h"

/* Appends every process's text to the table `out` on rank 0, in rank order,
 * receiving one process's text at a time: rank 0 never holds more than one
 * process's share (memory stays O(degree), never O(p * degree)). Collective.
 * A failed append is the table's (whole_output.h): the others still send. */
void gather_text(MPI_Comm comm, const char *text, size_t size, struct table *out);

#endif
