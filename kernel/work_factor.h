/* work_factor: busy work as a multiple of the time the exchange takes
 * without work. Before an experiment's repetitions the kernel runs the
 * operation's work_reference (registry/operations.csv: the nonblocking
 * form for every form of a neighborhood collective) without work: one
 * untimed warm-up, then WORK_FACTOR_REPS repetitions, each the slowest
 * process's time, and takes their median. Every process computes the same
 * median, so all do the same work. The median is kept for the rest of the
 * run: every later experiment with the same reference and the same
 * exchange (all parameters but op, work_factor, work_us, nrep) reuses it,
 * so that the blocking, nonblocking and persistent forms of one exchange
 * get exactly the same work in a run (GL15 compares them with the same w).
 * A/A twins time their own and share it among themselves alone, as in an
 * independent launch. */
#ifndef NBH_WORK_FACTOR_H
#define NBH_WORK_FACTOR_H

#include <stdint.h>

#include "run_context.h"

#define WORK_FACTOR_REPS 10

struct work_plan {
    double reference_seconds;  /* median time of the work_reference without work */
    long reference_id;         /* the experiment in which it was timed */
    double work_us;            /* work_factor x reference_seconds, in microseconds */
    uint64_t steps;            /* the countdown steps that take work_us at the rate */
};

/* Collective on ctx->comm (when it times; every process of the run makes
 * the same choice), after the topology is made and before the experiment's
 * own setup is prepared. */
void work_factor_plan(struct run_context *ctx, double factor, double rate, struct work_plan *plan);

#endif
