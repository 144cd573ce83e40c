#include "timing_loop.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "busy_work.h"

static void grow(struct repetitions *r, long n)
{
    if (r->attempts + n <= r->capacity)
        return;
    r->capacity = 2 * (r->attempts + n);
    double **columns[] = {&r->seconds, &r->work, &r->delay, &r->drawn, &r->lateness};
    for (size_t c = 0; c < sizeof(columns) / sizeof(columns[0]); c++)
        *columns[c] = realloc(*columns[c], sizeof(double) * (size_t)r->capacity);
    r->late = realloc(r->late, (size_t)r->capacity);
    r->valid = realloc(r->valid, (size_t)r->capacity);
}

void repetitions_free(struct repetitions *r)
{
    free(r->seconds), free(r->work), free(r->delay), free(r->drawn), free(r->lateness);
    free(r->late), free(r->valid);
    memset(r, 0, sizeof(*r));
}

void timing_loop_attempts(struct run_context *ctx, const struct setup *s, struct sync_run *sync,
                          struct arrival_plan *arrival, struct findings *findings, long n,
                          struct repetitions *r)
{
    grow(r, n);
    const struct sync_method *m = sync->method;
    double loop_start = MPI_Wtime();
    m->begin(sync, n);
    for (long k = 0; k < n; k++) {
        long i = r->attempts + k;
        if (findings)
            validation_reset(ctx);
        double work = 0, delay = 0, drawn = 0;
        double t0 = m->start(sync, k);
        if (arrival) {
            drawn = arrival_next_delay(arrival);
            double t = m->now(sync);
            while (t < t0 + drawn) {
                if (arrival->yield)
                    sched_yield();
                t = m->now(sync);
            }
            delay = t - t0;
        }
        s->start(ctx);
        if (ctx->work) {
            double w0 = MPI_Wtime();
            busy_countdown(ctx->work);
            work = MPI_Wtime() - w0;
        }
        if (s->complete)
            s->complete(ctx);
        r->seconds[i] = m->now(sync) - t0;
        m->end(sync);
        r->work[i] = work, r->delay[i] = delay, r->drawn[i] = drawn;
        r->lateness[i] = sync->lateness, r->late[i] = (unsigned char)sync->late;
        if (findings)
            validation_check(ctx, findings);
        if (s->after)
            s->after(ctx);
    }
    r->attempts += n;
    r->loop_seconds += MPI_Wtime() - loop_start;
}

void repetitions_run(struct run_context *ctx, const struct setup *s, struct sync_run *sync,
                     struct arrival_plan *arrival, struct findings *findings, long nrep,
                     struct repetitions *r)
{
    memset(r, 0, sizeof(*r));
    while (r->valid_count < nrep && r->attempts < SYNC_MAX_ATTEMPTS * nrep) {
        long first = r->attempts, n = nrep - r->valid_count;
        if (sync->batch > 0 && n > sync->batch)
            n = sync->batch;
        timing_loop_attempts(ctx, s, sync, arrival, findings, n, r);
        r->batches++;
        MPI_Allreduce(r->late + first, r->valid + first, (int)n, MPI_UNSIGNED_CHAR, MPI_BOR, ctx->base);
        long late = 0, behind = 0;
        for (long i = first; i < first + n; i++) {
            behind += (r->valid[i] & SYNC_BEHIND) != 0;
            r->valid[i] = !r->valid[i];
            late += !r->valid[i];
        }
        r->valid_count += n - late;
        if (4 * behind > n)
            sync->method->widen(sync);
    }
}

double timing_loop(struct run_context *ctx, const struct setup *s, struct findings *findings, long nrep,
                   double *seconds, double *work_seconds)
{
    struct sync_run barrier;
    sync_run_init(&barrier, SYNC_barrier, ctx->comm, ctx->base);
    struct repetitions r;
    memset(&r, 0, sizeof(r));
    timing_loop_attempts(ctx, s, &barrier, NULL, findings, nrep, &r);
    memcpy(seconds, r.seconds, sizeof(double) * (size_t)nrep);
    if (work_seconds)
        memcpy(work_seconds, r.work, sizeof(double) * (size_t)nrep);
    double loop_seconds = r.loop_seconds;
    repetitions_free(&r);
    return loop_seconds;
}
