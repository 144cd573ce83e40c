#include "work_factor.h"

#include <stdlib.h>

#include "busy_work.h"
#include "setups/setup.h"
#include "timing_loop.h"

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void work_factor_plan(struct run_context *ctx, double factor, double rate, struct work_plan *plan)
{
    const struct setup *reference = setup_for((enum operation)operation_table[ctx->e->op].work_reference);
    enum { N = WORK_FACTOR_REPS + 1 };
    double mine[N], slowest[N];
    uint64_t work = ctx->work;
    ctx->work = 0;
    reference->prepare(ctx);
    timing_loop(ctx, reference, NULL, N, mine, NULL);
    reference->release(ctx);
    ctx->work = work;
    /* The first repetition warms up (connections, first touch). */
    MPI_Allreduce(mine + 1, slowest, N - 1, MPI_DOUBLE, MPI_MAX, ctx->comm);
    qsort(slowest, N - 1, sizeof(double), by_value);
    int n = N - 1;
    plan->reference_seconds = (slowest[(n - 1) / 2] + slowest[n / 2]) / 2;
    plan->work_us = factor * plan->reference_seconds * 1e6;
    plan->steps = countdown_steps(plan->work_us, rate);
}
