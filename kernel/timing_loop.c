#include "timing_loop.h"

#include "busy_work.h"
#include "dissemination_barrier.h"

void timing_loop(struct run_context *ctx, const struct setup *s, struct findings *findings,
                 double *seconds)
{
    for (long i = 0; i < ctx->e->nrep; i++) {
        if (findings)
            validation_reset(ctx);
        dissemination_barrier(ctx->comm);
        double t0 = MPI_Wtime();
        s->start(ctx);
        busy_countdown(ctx->work);
        if (s->complete)
            s->complete(ctx);
        seconds[i] = MPI_Wtime() - t0;
        dissemination_barrier(ctx->comm);
        if (findings)
            validation_check(ctx, findings);
        if (s->after)
            s->after(ctx);
    }
}
