#include "sync/start_skew.h"

#include <stdlib.h>

#include "dissemination_barrier.h"
#include "sync/local_clock.h"

void start_skew_record(struct sync_run *s, double local)
{
    if (!s->measure)
        return;
    if (s->nstarts == s->starts_capacity) {
        s->starts_capacity = 2 * s->starts_capacity + 64;
        s->local_starts = realloc(s->local_starts, sizeof(double) * (size_t)s->starts_capacity);
    }
    s->local_starts[s->nstarts++] = local;
}

/* The two largest of the processes' error bounds, summed (rank 0). */
static double resolution(MPI_Comm base, double error)
{
    int rank, p;
    MPI_Comm_rank(base, &rank);
    MPI_Comm_size(base, &p);
    double *all = rank == 0 ? malloc(sizeof(double) * (size_t)p) : NULL, first = 0, second = 0;
    MPI_Gather(&error, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, base);
    for (int i = 0; rank == 0 && i < p; i++) {
        if (all[i] > first)
            second = first, first = all[i];
        else if (all[i] > second)
            second = all[i];
    }
    free(all);
    return first + second;
}

void start_skew_measure(struct sync_run *s)
{
    dissemination_barrier(s->base);  /* its cost counted from when every process is done */
    double t0 = local_clock_now();
    struct clock_model history;
    clock_model_history(s->base, &history);  /* before the fresh fitpoint joins it */
    struct fitpoint fresh = clock_model_fitpoint(s->base);
    clock_model_remember(s->base, &fresh);
    clock_model_recent(1);
    long n = s->nstarts;
    double *global = malloc(sizeof(double) * 2 * (size_t)(n + 1)), *latest = global + n;
    for (long i = 0; i < n; i++) {
        double t = s->local_starts[i];
        global[i] = t + fresh.offset + history.drift * (t - fresh.local);
    }
    int rank;
    MPI_Comm_rank(s->base, &rank);
    free(s->spread);
    s->spread = rank == 0 ? malloc(sizeof(double) * (size_t)(n + 1)) : NULL;
    MPI_Reduce(global, latest, (int)n, MPI_DOUBLE, MPI_MAX, 0, s->base);
    MPI_Reduce(global, s->spread, (int)n, MPI_DOUBLE, MPI_MIN, 0, s->base);
    for (long i = 0; rank == 0 && i < n; i++)
        s->spread[i] = latest[i] - s->spread[i];
    free(global);
    s->skew_bound = resolution(s->base, fresh.error);
    s->measure_seconds = local_clock_now() - t0;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double start_skew_median(const struct sync_run *s, long first, const unsigned char *valid, long n)
{
    double *kept = malloc(sizeof(double) * (size_t)(n + 1));
    long k = 0;
    for (long i = 0; i < n && first + i < s->nstarts; i++)
        if (valid[i])
            kept[k++] = s->spread[first + i];
    double median = -1;
    if (k > 0) {
        qsort(kept, (size_t)k, sizeof(double), by_value);
        median = (kept[(k - 1) / 2] + kept[k / 2]) / 2;
    }
    free(kept);
    return median;
}
