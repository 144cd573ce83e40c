/* sync = barrier: the study's start. Each repetition begins at the exit of
 * the dissemination barrier on the repetitions' communicator and ends with
 * another; each process times from its own exit, with MPI_Wtime. When
 * asked (s->measure) the exits are recorded, before the timing begins
 * and into room made before the batch, and their skew measured after the
 * run's round (start_skew.h). */
#include "dissemination_barrier.h"
#include "sync/local_clock.h"
#include "sync/start_skew.h"
#include "sync/sync.h"

static void prepare(struct sync_run *s, struct run_context *ctx, const struct setup *op,
                    const struct arrival_plan *arrival)
{
    (void)s, (void)ctx, (void)op, (void)arrival;
}

static void begin(struct sync_run *s, long n)
{
    start_skew_reserve(s, n);
}

static double start(struct sync_run *s, long k)
{
    (void)k;
    dissemination_barrier(s->comm);
    if (s->measure)
        start_skew_record(s, local_clock_now());
    return MPI_Wtime();
}

static void end(struct sync_run *s)
{
    dissemination_barrier(s->comm);
}

static double now(const struct sync_run *s)
{
    (void)s;
    return MPI_Wtime();
}

static void widen(struct sync_run *s)
{
    (void)s;
}

static void finish(struct sync_run *s, struct run_context *ctx)
{
    (void)s, (void)ctx;
}

const struct sync_method sync_barrier = {prepare, begin, start, end, now, widen, finish};
