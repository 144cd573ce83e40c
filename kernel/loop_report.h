/* --loop-report: what the kernel itself costs per repetition, measured
 * directly. Every process takes a time stamp before and after the whole
 * repetition loop of an experiment (timing_loop); the loop's time minus the
 * sum of that process's timed sections (seconds[]) is what the kernel spent
 * on its own: the two barriers of every repetition (the waits included),
 * the data check with --validate, the bookkeeping. Divided by nrep, per
 * process; rank 0 prints one line per experiment on stdout:
 *
 *   loop id ID processes P nrep N loop_s L timed_us_per_rep T own_us_per_rep O own_us_per_rep_min M
 *
 * L the slowest process's loop, T the timed sections per repetition of that
 * same process, O the largest own cost per repetition over the processes
 * and M the smallest (their difference: the spread). */
#ifndef NBH_LOOP_REPORT_H
#define NBH_LOOP_REPORT_H

#include <mpi.h>

void loop_report(MPI_Comm comm, long id, long nrep, double loop_seconds, const double *seconds);

#endif
