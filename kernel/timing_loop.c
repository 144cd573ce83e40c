#include "timing_loop.h"

#include "busy_work.h"
#include "dissemination_barrier.h"

double timing_loop(struct run_context *ctx, const struct setup *s, struct findings *findings, long nrep,
                   double *seconds, double *work_seconds)
{
    double loop_start = MPI_Wtime();
    for (long i = 0; i < nrep; i++) {
        if (findings)
            validation_reset(ctx);
        double work = 0;
        dissemination_barrier(ctx->comm);
        double t0 = MPI_Wtime();
        s->start(ctx);
        if (ctx->work) {
            double w0 = MPI_Wtime();
            busy_countdown(ctx->work);
            work = MPI_Wtime() - w0;
        }
        if (s->complete)
            s->complete(ctx);
        seconds[i] = MPI_Wtime() - t0;
        if (work_seconds)
            work_seconds[i] = work;
        dissemination_barrier(ctx->comm);
        if (findings)
            validation_check(ctx, findings);
        if (s->after)
            s->after(ctx);
    }
    return MPI_Wtime() - loop_start;
}
