#ifndef NBH_TIMING_LOOP_H
#define NBH_TIMING_LOOP_H

#include "arrival.h"
#include "setups/setup.h"
#include "sync/sync.h"
#include "validation.h"

/* Algorithm 1 of the study, written once for every setup and start:
 *   for each repetition k:
 *       t0 = start (sync/: the barrier's exit, or the window's common
 *            start on the global clock)
 *       arrival delay (arrival.h): wait on the clock until t0 + this
 *            process's delay (spinning; on a host with more processes
 *            than cores yielding between looks), timed: delay[k]
 *       start the operation (the blocking operation, the nonblocking
 *            start, MPI_Start)
 *       busy work, timed on its own: work[k]
 *       complete (MPI_Wait for a nonblocking or persistent operation)
 *       seconds[k] = now - t0; end (the barrier; nothing for the clock)
 * With the clock a process may reach its start after the window began, or
 * be held up in its wait for it: late[k], and the repetition is invalid
 * (repetitions_run). Without busy
 * work nothing more is timed and work[k] is 0; without an arrival pattern
 * delay[k] is 0 and nothing more is timed either. With findings != NULL
 * every repetition's data is checked, untimed. */

/* What one process measured, per attempt (a repetition, valid or not). */
struct repetitions {
    long attempts;           /* made */
    long capacity;
    double *seconds;         /* common start to completion on this process */
    double *work;            /* the busy work as timed; 0 without */
    double *delay;           /* the arrival delay as timed (common start to the call); 0 without */
    double *drawn;           /* the delay the pattern gave */
    double *lateness;        /* the start minus the common start (clock); 0 (barrier) */
    unsigned char *late;     /* SYNC_BEHIND | SYNC_HELD (sync.h); 0: on time */
    unsigned char *valid;    /* every process was on time (repetitions_run) */
    long valid_count;
    int batches;
    double loop_seconds;     /* this process's time in the repetition loops, all attempts (loop_report.h) */
};

void repetitions_free(struct repetitions *r);

/* n more attempts (collective on ctx->comm). arrival NULL: no delays. */
void timing_loop_attempts(struct run_context *ctx, const struct setup *s, struct sync_run *sync,
                          struct arrival_plan *arrival, struct findings *findings, long n,
                          struct repetitions *r);

/* Attempts in batches until nrep are valid (collective on ctx->base): after
 * each batch every process learns which attempts some process started late;
 * those are invalid, counted and left out, and the next batch runs the
 * attempts still missing (at most the method's batch; the window doubled
 * when more than a quarter of the batch had a process that reached its
 * start after the window began: a wider window gives it time, where a
 * process held up in its wait would be held up in any). At most SYNC_MAX_ATTEMPTS x nrep attempts: an experiment that
 * has fewer valid repetitions then keeps those. With the barrier one
 * batch, every attempt valid. */
#define SYNC_MAX_ATTEMPTS 20
void repetitions_run(struct run_context *ctx, const struct setup *s, struct sync_run *sync,
                     struct arrival_plan *arrival, struct findings *findings, long nrep,
                     struct repetitions *r);

/* The study's loop: barrier start, no delays; seconds[k], work_seconds[k]
 * (may be NULL) of nrep repetitions on this process. Returns this
 * process's time of the whole loop: what it spent beyond the timed
 * sections (the sum of seconds[]) is the kernel's own cost (the barriers,
 * the data check, the bookkeeping; see loop_report.c). */
double timing_loop(struct run_context *ctx, const struct setup *s, struct findings *findings, long nrep,
                   double *seconds, double *work_seconds);

#endif
