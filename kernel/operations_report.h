#ifndef NBH_OPERATIONS_REPORT_H
#define NBH_OPERATIONS_REPORT_H

#include <stdio.h>

/* `nbh-kernel --operations`: every operation of the registry and whether
 * this build can run it, as CSV (name,available,note), without MPI_Init:
 * `make` writes it to build/LIBRARY/operations.csv, where `nbhbench
 * generate` reads which experiments the library can run. */
int operations_report(FILE *out);

#endif
