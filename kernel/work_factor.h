/* work_factor: busy work as a multiple of the time the exchange takes
 * without work. Before an experiment's repetitions the kernel runs the
 * operation's work_reference (registry/operations.csv: the nonblocking
 * form for every form of a neighborhood collective, so that the blocking,
 * nonblocking and persistent experiments of one exchange get the same
 * work) without work: one untimed warm-up, then WORK_FACTOR_REPS
 * repetitions, each the slowest process's time, and takes their median.
 * Every process computes the same median, so all do the same work. */
#ifndef NBH_WORK_FACTOR_H
#define NBH_WORK_FACTOR_H

#include <stdint.h>

#include "run_context.h"

#define WORK_FACTOR_REPS 10

struct work_plan {
    double reference_seconds;  /* median time of the work_reference without work */
    double work_us;            /* work_factor x reference_seconds, in microseconds */
    uint64_t steps;            /* the countdown steps that take work_us at the rate */
};

/* Collective on ctx->comm, after the topology is made and before the
 * experiment's own setup is prepared. */
void work_factor_plan(struct run_context *ctx, double factor, double rate, struct work_plan *plan);

#endif
