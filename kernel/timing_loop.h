#ifndef NBH_TIMING_LOOP_H
#define NBH_TIMING_LOOP_H

#include "setups/setup.h"
#include "validation.h"

/* Algorithm 1 of the study, written once for every setup:
 *   for each of nrep repetitions i:
 *       barrier; t0 = MPI_Wtime()
 *       start (the blocking operation, the nonblocking start, MPI_Start)
 *       busy work, timed on its own: work_seconds[i]
 *       complete (MPI_Wait for a nonblocking or persistent operation)
 *       seconds[i] = MPI_Wtime() - t0; barrier
 * The barrier is the dissemination barrier on the communicator in use.
 * Without busy work (ctx->work 0) nothing more is timed and work_seconds[i]
 * is 0; work_seconds may be NULL. With findings != NULL every repetition's
 * data is checked, untimed. Returns this process's time of the whole loop:
 * what it spent beyond the timed sections (the sum of seconds[]) is the
 * kernel's own cost (the barriers, the data check, the bookkeeping; see
 * loop_report.c). */
double timing_loop(struct run_context *ctx, const struct setup *s, struct findings *findings, long nrep,
                   double *seconds, double *work_seconds);

#endif
