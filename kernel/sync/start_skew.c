#include "sync/start_skew.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dissemination_barrier.h"
#include "sync/local_clock.h"

static void *grown(void *p, long *capacity, long need, size_t size)
{
    if (need <= *capacity)
        return p;
    *capacity = 2 * need + 64;
    return realloc(p, size * (size_t)*capacity);
}

void start_skew_reserve(struct sync_run *s, long n)
{
    if (s->measure)
        s->local_starts = grown(s->local_starts, &s->starts_capacity, s->nstarts + n, sizeof(double));
}

void start_skew_record(struct sync_run *s, double local)
{
    if (!s->measure)
        return;
    start_skew_reserve(s, 1);  /* made before the batch: a no-op */
    s->local_starts[s->nstarts++] = local;
}

/* The starts of the round's experiments that wait for the round's
 * measurement, and their rows (rank 0's). */
struct deferred_row {
    const struct experiment *e;
    int round;
    long first, n;  /* their starts in `starts` */
    struct preparation row;
};
static struct {
    double *starts;
    unsigned char *valid;
    long n, capacity, valid_capacity;
    struct deferred_row *rows;
    long nrows, rows_capacity;
} deferred;

void start_skew_defer(const struct sync_run *s, const struct experiment *e, int round, long first,
                      const unsigned char *valid, long n, const struct preparation *row)
{
    if (!s->measure)
        return;
    long need = deferred.n + n;
    deferred.starts = grown(deferred.starts, &deferred.capacity, need, sizeof(double));
    deferred.valid = grown(deferred.valid, &deferred.valid_capacity, need, 1);
    memcpy(deferred.starts + deferred.n, s->local_starts + first, sizeof(double) * (size_t)n);
    memcpy(deferred.valid + deferred.n, valid, (size_t)n);
    deferred.rows = grown(deferred.rows, &deferred.rows_capacity, deferred.nrows + 1, sizeof(struct deferred_row));
    deferred.rows[deferred.nrows++] = (struct deferred_row){e, round, deferred.n, n, *row};
    deferred.n = need;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double start_skew_median(double *values, const unsigned char *valid, long n)
{
    long k = 0;
    for (long i = 0; i < n; i++)
        if (valid[i])
            values[k++] = values[i];
    if (k == 0)
        return -1;
    qsort(values, (size_t)k, sizeof(double), by_value);
    return (values[(k - 1) / 2] + values[k / 2]) / 2;
}

/* The spread of starts[0 .. n - 1] (rank 0: spread) and, per row r of
 * rows, the resolution at its earliest start starts[row_first[r]]: the
 * two largest of the processes' error bounds there, summed (rank 0:
 * bounds). The fresh fitpoint joins the history. Collective on base. */
static void measure(MPI_Comm base, const double *starts, long n, const long *row_first, long rows, double *spread,
                    double *bounds)
{
    int rank, p;
    MPI_Comm_rank(base, &rank);
    MPI_Comm_size(base, &p);
    struct clock_model history;
    clock_model_history(base, &history);  /* before the fresh fitpoint joins it */
    struct fitpoint fresh = clock_model_fitpoint(base);
    /* each start on rank 0's clock, and its negative: one MAX gives the latest and the earliest */
    double *global = malloc(sizeof(double) * 4 * (size_t)(n + 1)), *extremes = global + 2 * n;
    for (long i = 0; i < n; i++) {
        double t = starts[i], g = t + fresh.offset + history.drift * (t - fresh.local);
        global[i] = g, global[n + i] = -g;
    }
    MPI_Reduce(global, extremes, 2 * (int)n, MPI_DOUBLE, MPI_MAX, 0, base);
    for (long i = 0; rank == 0 && i < n; i++)
        spread[i] = extremes[i] + extremes[n + i];
    free(global);
    double *mine = malloc(sizeof(double) * (size_t)(rows + 1));
    for (long r = 0; r < rows; r++)
        mine[r] = fresh.error + history.drift_sd * fabs(fresh.local - starts[row_first[r]]);
    double *all = rank == 0 ? malloc(sizeof(double) * (size_t)(rows * p + 1)) : NULL;
    MPI_Gather(mine, (int)rows, MPI_DOUBLE, all, (int)rows, MPI_DOUBLE, 0, base);
    for (long r = 0; rank == 0 && r < rows; r++) {
        double first = 0, second = 0;
        for (int q = 0; q < p; q++) {
            double b = all[(long)q * rows + r];
            if (b > first)
                second = first, first = b;
            else if (b > second)
                second = b;
        }
        bounds[r] = first + second;
    }
    free(all);
    free(mine);
    clock_model_remember(base, &fresh);
}

void start_skew_spread(MPI_Comm base, const double *starts, long n, double *spread, double *bound)
{
    long first = 0;
    measure(base, starts, n, &first, 1, spread, bound);
}

int start_skew_flush(MPI_Comm base, struct output *out)
{
    if (deferred.nrows == 0)  /* the same on every process: they ran the same experiments */
        return 0;
    int rank;
    MPI_Comm_rank(base, &rank);
    dissemination_barrier(base);  /* its cost counted from when every process is done */
    double t0 = local_clock_now();
    long rows = deferred.nrows, *row_first = malloc(sizeof(long) * (size_t)rows);
    for (long r = 0; r < rows; r++)
        row_first[r] = deferred.rows[r].first;
    double *spread = rank == 0 ? malloc(sizeof(double) * (size_t)(deferred.n + 1)) : NULL;
    double *bounds = rank == 0 ? malloc(sizeof(double) * (size_t)rows) : NULL;
    measure(base, deferred.starts, deferred.n, row_first, rows, spread, bounds);
    double cost = local_clock_now() - t0, slowest = 0;
    MPI_Reduce(&cost, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, base);
    int status = 0;
    if (rank == 0) {
        long clock_rows = 0;
        for (long r = 0; r < rows; r++)
            clock_rows += deferred.rows[r].e->sync == SYNC_clock;
        for (long r = 0; r < rows; r++) {
            struct deferred_row *d = &deferred.rows[r];
            d->row.measured_skew = start_skew_median(spread + d->first, deferred.valid + d->first, d->n);
            d->row.skew_bound = bounds[r];
            if (d->e->sync == SYNC_clock)
                d->row.sync_seconds += slowest / (double)clock_rows;
            output_preparation(out, d->e, d->round, &d->row);
        }
        status = output_end_experiment(out);
    }
    MPI_Bcast(&status, 1, MPI_INT, 0, base);
    free(row_first);
    free(spread);
    free(bounds);
    deferred.n = deferred.nrows = 0;
    return status;
}
