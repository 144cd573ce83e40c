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
 * than cores (clock_wait_until). The window is timed in an experiment's
 * first round; its later rounds start with the window the round before
 * ended with (kept per experiment id for the run). After the repetitions
 * the start skew is measured anew, independently of the model
 * (start_skew.h), and that fresh fitpoint is the next estimate's latest.
 * What the preparation costs (prepare_seconds) is counted from the
 * barrier that brings every process to it, so that a process waiting for
 * the others to finish what came before does not count as the clock's
 * cost (with the barrier start the first repetition's barrier absorbs
 * that wait). */
#include <stdlib.h>

#include "arrival.h"
#include "dissemination_barrier.h"
#include "run_context.h"
#include "setups/setup.h"
#include "sync/local_clock.h"
#include "sync/start_skew.h"
#include "sync/sync.h"
#include "timing_loop.h"

#define WINDOW_REPS 3
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

/* The windows the run's experiments ended their last rounds with. */
static struct kept {
    long id;
    double window;
} *kept;
static long nkept;

static struct kept *kept_window(long id)
{
    for (long i = 0; i < nkept; i++)
        if (kept[i].id == id)
            return &kept[i];
    return NULL;
}

static void prepare(struct sync_run *s, struct run_context *ctx, const struct setup *op,
                    const struct arrival_plan *arrival)
{
    dissemination_barrier(s->base);
    double t0 = local_clock_now();
    s->yield = clock_host_oversubscribed(s->base);
    clock_model_estimate(s->base, &s->model);
    local_clock_distort(&s->model);
    local_clock_audit(s->base, &s->model, ctx->e->id, "estimate");
    const struct kept *k = kept_window(ctx->e->id);
    s->window = k ? k->window : WINDOW_FACTOR * first_measurement(ctx, op, arrival) + WINDOW_SLACK;
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
    start_skew_record(s, local_clock_now());
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
    start_skew_measure(s);
    struct kept *k = kept_window(ctx->e->id);
    if (!k) {
        kept = realloc(kept, sizeof(*kept) * (size_t)(nkept + 1));
        k = &kept[nkept++];
        k->id = ctx->e->id;
    }
    k->window = s->window;
}

const struct sync_method sync_clock = {prepare, begin, start, end, now, widen, finish};
