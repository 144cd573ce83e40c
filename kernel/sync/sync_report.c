#include "sync/sync_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dissemination_barrier.h"
#include "sync/local_clock.h"
#include "sync/start_skew.h"
#include "sync/sync.h"

#define SKEW_STARTS 1000
#define ESTIMATES 5
#define ESTIMATE_SPACING 0.25
#define REPORT_WINDOW 100e-6
#define GROWTH_POINTS 9
#define GROWTH_SECONDS 2.0

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void pause_for(double seconds)
{
    struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&t, NULL);
}

/* The kept values of n (sorted): their median and 95th percentile. */
static void quantiles(double *values, int n, double *median, double *p95)
{
    qsort(values, (size_t)n, sizeof(double), by_value);
    *median = n ? values[n / 2] : NAN;
    *p95 = n ? values[(int)(0.95 * (n - 1))] : NAN;
}

/* The slope (us per s) of this process's model error over the fresh
 * fitpoints taken over GROWTH_SECONDS after the model was made; rank 0
 * gets the largest magnitude of any process. */
static double error_growth(MPI_Comm comm, const struct clock_model *m)
{
    double t[GROWTH_POINTS], e[GROWTH_POINTS], mt = 0, me = 0;
    for (int i = 0; i < GROWTH_POINTS; i++) {
        if (i)
            pause_for(GROWTH_SECONDS / (GROWTH_POINTS - 1));
        dissemination_barrier(comm);
        struct fitpoint f = clock_model_fitpoint(comm);
        t[i] = f.local;
        e[i] = f.offset - (clock_global(m, f.local) - f.local);  /* the fresh offset minus the model's */
        mt += t[i] / GROWTH_POINTS;
        me += e[i] / GROWTH_POINTS;
    }
    double stt = 0, ste = 0;
    for (int i = 0; i < GROWTH_POINTS; i++) {
        stt += (t[i] - mt) * (t[i] - mt);
        ste += (t[i] - mt) * (e[i] - me);
    }
    double slope = fabs(ste / stt) * 1e6, largest = 0;
    MPI_Reduce(&slope, &largest, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
    return largest;
}

void sync_report(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    struct sync_run s;
    sync_run_init(&s, SYNC_clock, comm, comm);
    dissemination_barrier(comm);
    clock_model_estimate(comm, &s.model);
    /* what a resynchronisation costs, the run's fitpoints spread over a second */
    double cost[ESTIMATES], slowest[ESTIMATES];
    for (int i = 0; i < ESTIMATES; i++) {
        pause_for(ESTIMATE_SPACING);
        dissemination_barrier(comm);
        double t0 = local_clock_now();
        clock_model_resync(comm, &s.model);
        cost[i] = local_clock_now() - t0;
    }
    MPI_Reduce(cost, slowest, ESTIMATES, MPI_DOUBLE, MPI_MAX, 0, comm);
    struct clock_model model = s.model;

    /* barrier exits, measured */
    static double barrier_spread[SKEW_STARTS], clock_spread[SKEW_STARTS];
    double barrier_bound = 0, clock_bound = 0;
    struct sync_run barrier;
    sync_run_init(&barrier, SYNC_barrier, comm, comm);
    barrier.measure = 1;
    for (int i = 0; i < 100; i++)
        dissemination_barrier(comm);
    barrier.method->begin(&barrier, SKEW_STARTS);
    for (int i = 0; i < SKEW_STARTS; i++)
        barrier.method->start(&barrier, i);
    start_skew_spread(comm, barrier.local_starts, SKEW_STARTS, barrier_spread, &barrier_bound);

    /* clock starts as the kernel makes them: a process that finds the
     * clock already past its start was held up (a start the kernel repeats) */
    static int late[SKEW_STARTS], any_late[SKEW_STARTS];
    static double lateness[SKEW_STARTS], latest[SKEW_STARTS];
    static double measured[SKEW_STARTS], seen[SKEW_STARTS];
    s.model = model;
    s.yield = clock_host_oversubscribed(comm);
    s.window = REPORT_WINDOW;
    s.first = -1;
    s.method->begin(&s, SKEW_STARTS);
    for (int i = 0; i < SKEW_STARTS; i++) {
        s.method->start(&s, i);
        late[i] = s.late;
        lateness[i] = s.lateness;
    }
    start_skew_spread(comm, s.local_starts, SKEW_STARTS, clock_spread, &clock_bound);
    MPI_Reduce(late, any_late, SKEW_STARTS, MPI_INT, MPI_MAX, 0, comm);
    MPI_Reduce(lateness, latest, SKEW_STARTS, MPI_DOUBLE, MPI_MAX, 0, comm);
    double growth = error_growth(comm, &model);
    if (rank == 0) {
        int valid = 0;
        for (int i = 0; i < SKEW_STARTS; i++)
            if (!any_late[i])
                measured[valid] = clock_spread[i], seen[valid++] = latest[i];
        double bm, b95, cm, c95, sm, s95, em, e95;
        quantiles(barrier_spread, SKEW_STARTS, &bm, &b95);
        quantiles(measured, valid, &cm, &c95);
        quantiles(seen, valid, &sm, &s95);
        quantiles(slowest, ESTIMATES, &em, &e95);
        double resolution = barrier_bound > clock_bound ? barrier_bound : clock_bound;
        printf("processes %d barrier_skew_us median %.3f p95 %.3f clock_skew_us median %.3f p95 %.3f "
               "clock_late_percent %.1f clock_estimate_ms %.3f model_lateness_us median %.3f p95 %.3f "
               "resolution_us %.3f model_error_growth_us_per_s %.3f\n", p, bm * 1e6, b95 * 1e6, cm * 1e6,
               c95 * 1e6, 100.0 * (SKEW_STARTS - valid) / SKEW_STARTS, em * 1e3, sm * 1e6, s95 * 1e6,
               resolution * 1e6, growth);
    }
    sync_run_free(&barrier);
    sync_run_free(&s);
}
