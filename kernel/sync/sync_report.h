#ifndef NBH_SYNC_REPORT_H
#define NBH_SYNC_REPORT_H

#include <mpi.h>

/* --sync-report (make bench): on every process of comm, how far apart the
 * processes start a repetition with each method, measured independently
 * of the method (start_skew.h: fresh offsets to rank 0 after the starts,
 * against every process's recorded local start times): SKEW_STARTS
 * barrier exits, then as many starts at windows of the clock (100 us
 * apart); per start the latest minus the earliest process, median and
 * 95th percentile, for the clock over the starts no process reached after
 * its window began (the kernel repeats the others: their share is
 * printed), and beside it what the clock's own model saw (the latest
 * lateness, which is near zero by construction); the measurement's
 * resolution; what a resynchronisation costs (one fitpoint of every
 * process: slowest process, median of 5, taken 250 ms apart so that the
 * model's history spans a second as a run's would); and how fast the model's error grows: fresh offsets
 * over the two seconds after the last estimate, against the model's,
 * the largest slope of any process in us per second. Rank 0 prints one
 * line. */
void sync_report(MPI_Comm comm);

#endif
