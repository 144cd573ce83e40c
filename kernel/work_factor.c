#include "work_factor.h"

#include <stdlib.h>
#include <string.h>

#include "busy_work.h"
#include "datatypes/packing.h"
#include "setups/setup.h"
#include "timing_loop.h"

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The reference times of this run, by exchange. */
static struct timed {
    struct experiment exchange;  /* op: the work_reference; id: where it was timed */
    double seconds;
} *timed;
static int ntimed;

/* The experiment's exchange: its work_reference with every parameter but
 * the work and the repetitions. */
static struct experiment exchange_of(const struct experiment *e)
{
    struct experiment x = *e;
    x.op = (enum operation)operation_table[e->op].work_reference;
    x.id = x.nrep = x.line = 0;
    x.work_us = x.work_factor = 0;
    return x;
}

/* Twins time their own (a twin shares no original's reference): the work
 * a reference gives is fixed for the launch, and a twin that took its
 * original's would cancel that launch-level draw in twin / original. */
static int same_exchange(const struct experiment *a, const struct experiment *b)
{
    return a->twin == b->twin && a->op == b->op && a->topology == b->topology && a->constructor == b->constructor &&
           a->ndim == b->ndim && a->nfin == b->nfin && a->radius == b->radius && a->order == b->order &&
           a->reorder == b->reorder && a->datatype == b->datatype && a->msize == b->msize && a->seed == b->seed &&
           memcmp(&a->layout, &b->layout, sizeof(a->layout)) == 0;
}

static double time_reference(struct run_context *ctx)
{
    const struct setup *reference =
        packing_setup(ctx, setup_for((enum operation)operation_table[ctx->e->op].work_reference));
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
    return (slowest[(n - 1) / 2] + slowest[n / 2]) / 2;
}

void work_factor_plan(struct run_context *ctx, double factor, double rate, struct work_plan *plan)
{
    struct experiment x = exchange_of(ctx->e);
    int k = 0;
    while (k < ntimed && !same_exchange(&timed[k].exchange, &x))
        k++;
    if (k == ntimed) {
        timed = realloc(timed, sizeof(*timed) * (size_t)(ntimed + 1));
        x.id = ctx->e->id;
        timed[ntimed++] = (struct timed){x, time_reference(ctx)};
    }
    plan->reference_seconds = timed[k].seconds;
    plan->reference_id = timed[k].exchange.id;
    plan->work_us = factor * plan->reference_seconds * 1e6;
    plan->steps = countdown_steps(plan->work_us, rate);
}
