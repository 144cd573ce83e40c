/* sync = clock: repetitions start in windows of a global clock, as
 * ReproMPI's window synchronisation with its HCA clocks and SKaMPI do.
 * The run's first clock-started experiment estimates every process's
 * model of rank 0's clock (clock_model.c: 8 fitpoints); later experiments
 * use the model as it stands, kept up to date: before each batch rank 0
 * tells every process, with the batch's first window, whether some
 * model's error bound would grow past its limit before the batch ends,
 * and then every process takes one new fitpoint first
 * (resynchronisation). Before an experiment's first round the operation
 * is timed as it will run (with its busy work and arrival pattern, after
 * the barrier: one warm-up, then WINDOW_REPS repetitions, each the slowest
 * process's time); the window is WINDOW_FACTOR times their median plus
 * WINDOW_SLACK, the same on every process, and later rounds start with
 * the window the round before ended with (kept per experiment id for the
 * run). The repetitions run in batches of BATCH_SECONDS of windows
 * (BATCH_MIN to BATCH_MAX repetitions): before each, rank 0 names the
 * first window, LEAD plus LEAD_WINDOWS windows ahead; repetition k starts
 * when the global clock reaches first + k x window. A process that finds
 * the clock already there was still busy with the repetition before (or
 * was not scheduled); one whose wait ended after the next window had
 * begun (and later than its model's error bound, below which lateness
 * cannot be told) was held up while it waited (preempted while it spun,
 * or on a host with more processes than cores not given a core back in
 * time): it started when the next repetition should have, and the
 * lateness is in the time measured. Either marks the
 * repetition late, which makes it invalid; a process held up for many
 * windows makes the rest of its batch late while it catches up, which is
 * why batches are short. Until its start a process spins, or yields
 * between looks on a host with more processes than cores
 * (clock_wait_until). The start skew is measured after the run's round,
 * independently of the models (start_skew.h). What the preparation costs
 * (prepare_seconds: the first estimate, the window's timing and the
 * resynchronisations) is counted from the barrier before the first
 * estimate, so that a process waiting for the others to finish what came
 * before does not count as the clock's cost. With `each`
 * (--sync-each-experiment, for make bench's comparison) it is the kernel
 * before issue 37: a barrier and the model refitted before every
 * experiment round, the skew measured after each, no resynchronisation
 * between. */
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
    static int estimated;  /* the same on every process */
    if (!estimated || s->each)
        dissemination_barrier(s->base);
    estimated = 1;
    double t0 = local_clock_now();
    s->yield = clock_host_oversubscribed(s->base);
    clock_model_estimate(s->base, &s->model);
    local_clock_distort(&s->model);
    s->audit_id = ctx->e->id;
    local_clock_audit(s->base, &s->model, ctx->e->id, "estimate");
    const struct kept *k = kept_window(ctx->e->id);
    s->window = k ? k->window : WINDOW_FACTOR * first_measurement(ctx, op, arrival) + WINDOW_SLACK;
    s->prepare_seconds = local_clock_now() - t0;
    s->first = -1;
    set_batch(s);
}

/* Rank 0 names the batch's first window, and says whether the processes
 * resynchronise first (then it names the window after that). */
static void begin(struct sync_run *s, long n)
{
    int rank;
    MPI_Comm_rank(s->base, &rank);
    int first_batch = s->first < 0;
    double named[2] = {0, 0};  /* the first window; whether to resynchronise first */
    if (rank == 0) {
        double t = now(s), lead = LEAD + LEAD_WINDOWS * s->window;
        named[0] = t + lead;
        named[1] = !s->each && clock_model_due(t + lead + (double)n * s->window);
    }
    MPI_Bcast(named, 2, MPI_DOUBLE, 0, s->base);
    if (named[1]) {
        double t0 = local_clock_now();
        clock_model_resync(s->base, &s->model);
        local_clock_distort(&s->model);
        local_clock_audit(s->base, &s->model, s->audit_id, "resync");
        if (rank == 0)
            named[0] = now(s) + LEAD + LEAD_WINDOWS * s->window;
        MPI_Bcast(named, 1, MPI_DOUBLE, 0, s->base);
        s->prepare_seconds += local_clock_now() - t0;
    }
    s->first = named[0];
    start_skew_reserve(s, n);
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
    int arrived_late = now(s) >= target;
    double local, seen = clock_wait_until(&s->model, target, s->yield, &local);
    double resolution = clock_bound_at(&s->model, local);
    double tolerance = s->window > resolution ? s->window : resolution;
    s->lateness = seen - target;
    s->late = arrived_late ? SYNC_BEHIND : s->lateness > tolerance ? SYNC_HELD : 0;
    start_skew_record(s, local);
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
    struct kept *k = kept_window(ctx->e->id);
    if (!k) {
        kept = realloc(kept, sizeof(*kept) * (size_t)(nkept + 1));
        k = &kept[nkept++];
        k->id = ctx->e->id;
    }
    k->window = s->window;
}

const struct sync_method sync_clock = {prepare, begin, start, end, now, widen, finish};
