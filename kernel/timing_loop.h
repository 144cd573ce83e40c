#ifndef NBH_TIMING_LOOP_H
#define NBH_TIMING_LOOP_H

#include "setups/setup.h"
#include "validation.h"

/* Algorithm 1 of the study, written once for every setup:
 *   for each repetition i:
 *       barrier; t0 = MPI_Wtime()
 *       start (the blocking operation, or the nonblocking start)
 *       busy work; complete (MPI_Wait for a nonblocking operation)
 *       seconds[i] = MPI_Wtime() - t0; barrier
 * The barrier is the dissemination barrier on the communicator in use.
 * With findings != NULL every repetition's data is checked, untimed. */
void timing_loop(struct run_context *ctx, const struct setup *s, struct findings *findings,
                 double *seconds);

#endif
