#ifndef NBH_SYNC_REPORT_H
#define NBH_SYNC_REPORT_H

#include <mpi.h>

/* --sync-report (make bench): on every process of comm, how far apart the
 * processes start a repetition with each method, measured on the global
 * clock: SKEW_STARTS barrier exits, then as many starts at windows of the
 * clock (100 us apart); per start the latest minus the earliest process,
 * median and 95th percentile, for the clock over the starts no process
 * reached after its window began (the kernel repeats the others: their
 * share is printed); and what one clock estimate costs (slowest process,
 * median of 5). Rank 0 prints one line. */
void sync_report(MPI_Comm comm);

#endif
