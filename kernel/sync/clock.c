/* sync = clock: repetitions start in windows of a global clock, as
 * ReproMPI's window synchronisation and SKaMPI do. Before the experiment
 * every process estimates rank 0's clock (clock_model.c) and the operation
 * is timed as it will run (with its busy work and arrival pattern, after
 * the barrier: one warm-up, then WINDOW_REPS repetitions, each the slowest
 * process's time); the window is WINDOW_FACTOR times their median plus
 * WINDOW_SLACK, the same on every process. The repetitions run in batches
 * of BATCH_SECONDS of windows (BATCH_MIN to BATCH_MAX repetitions): before
 * each, rank 0 names the first window, LEAD plus LEAD_WINDOWS windows
 * ahead; repetition k starts when the
 * global clock reaches first + k x window. A process that finds the clock
 * already there was still busy with the repetition before (or was not
 * scheduled): it marks the repetition late, which makes it invalid; a
 * process held up for many windows makes the rest of its batch late while
 * it catches up, which is why batches are short. Until its start a
 * process spins, or yields between looks on a host with more processes
 * than cores (clock_wait_until). */
#include <stdlib.h>

#include "arrival.h"
#include "run_context.h"
#include "setups/setup.h"
#include "sync/local_clock.h"
#include "sync/sync.h"
#include "timing_loop.h"

#define WINDOW_REPS 5
#define WINDOW_FACTOR 2.0
#define WINDOW_SLACK 10e-6
#define BATCH_SECONDS 1e-3
#define BATCH_MIN 4
#define BATCH_MAX 32
#define LEAD 100e-6
#define LEAD_WINDOWS 2

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double now(const struct sync_run *s)
{
    return clock_global(&s->model, local_clock_now());
}

/* The operation as it will run, after the barrier: the median of the
 * slowest process's times (every process computes the same). */
static double first_measurement(struct run_context *ctx, const struct setup *op,
                                const struct arrival_plan *arrival)
{
    enum { N = WINDOW_REPS + 1 };
    struct sync_run barrier;
    sync_run_init(&barrier, SYNC_barrier, ctx->comm, ctx->base);
    struct arrival_plan copy = *arrival;  /* the repetitions' draws start afresh */
    struct repetitions r = {0};
    timing_loop_attempts(ctx, op, &barrier, arrival_delays(arrival) ? &copy : NULL, NULL, N, &r);
    double slowest[N];
    MPI_Allreduce(r.seconds, slowest, N, MPI_DOUBLE, MPI_MAX, ctx->base);
    repetitions_free(&r);
    /* The first repetition warms up (connections, first touch). */
    qsort(slowest + 1, N - 1, sizeof(double), by_value);
    return (slowest[1 + (N - 2) / 2] + slowest[1 + (N - 1) / 2]) / 2;
}

static void set_batch(struct sync_run *s)
{
    double n = BATCH_SECONDS / s->window;
    s->batch = n < BATCH_MIN ? BATCH_MIN : n > BATCH_MAX ? BATCH_MAX : (long)n;
}

static void prepare(struct sync_run *s, struct run_context *ctx, const struct setup *op,
                    const struct arrival_plan *arrival)
{
    double t0 = local_clock_now();
    s->yield = clock_host_oversubscribed(s->base);
    clock_model_estimate(s->base, &s->model);
    local_clock_audit(s->base, &s->model, ctx->e->id, "estimate");
    s->window = WINDOW_FACTOR * first_measurement(ctx, op, arrival) + WINDOW_SLACK;
    s->prepare_seconds = local_clock_now() - t0;
    s->first = -1;
    set_batch(s);
}

static void begin(struct sync_run *s)
{
    int rank;
    MPI_Comm_rank(s->base, &rank);
    int first_batch = s->first < 0;
    if (rank == 0)
        s->first = now(s) + LEAD + LEAD_WINDOWS * s->window;
    MPI_Bcast(&s->first, 1, MPI_DOUBLE, 0, s->base);
    if (first_batch) {
        /* rank 0's clock minus this process's at the first window */
        double local = s->first - s->model.offset;
        s->offset = clock_global(&s->model, local) - local;
    }
}

static double start(struct sync_run *s, long k)
{
    double target = s->first + (double)k * s->window;
    local_clock_stall(k);
    double t = now(s);
    s->late = t >= target;
    s->lateness = clock_wait_until(&s->model, target, s->yield) - target;
    return target;
}

static void end(struct sync_run *s)
{
    (void)s;
}

static void widen(struct sync_run *s)
{
    s->window *= 2;
    set_batch(s);
}

/* Test builds check the model again once the repetitions are done. */
static void finish(struct sync_run *s, struct run_context *ctx)
{
    local_clock_audit(s->base, &s->model, ctx->e->id, "end");
}

const struct sync_method sync_clock = {prepare, begin, start, end, now, widen, finish};
