#include "sync/sync_report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "dissemination_barrier.h"
#include "sync/clock_model.h"
#include "sync/local_clock.h"

#define SKEW_STARTS 1000
#define ESTIMATES 5
#define REPORT_WINDOW 100e-6

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Per start, the latest minus the earliest process (rank 0; sorted), of
 * the starts no process was late for (late may be NULL: none was); returns
 * how many. */
static int spread(MPI_Comm comm, const double *starts, const int *late, double *out)
{
    static double latest[SKEW_STARTS], earliest[SKEW_STARTS];
    static int any_late[SKEW_STARTS];
    MPI_Reduce(starts, latest, SKEW_STARTS, MPI_DOUBLE, MPI_MAX, 0, comm);
    MPI_Reduce(starts, earliest, SKEW_STARTS, MPI_DOUBLE, MPI_MIN, 0, comm);
    if (late)
        MPI_Reduce(late, any_late, SKEW_STARTS, MPI_INT, MPI_MAX, 0, comm);
    int n = 0;
    for (int i = 0; i < SKEW_STARTS; i++)
        if (!late || !any_late[i])
            out[n++] = latest[i] - earliest[i];
    qsort(out, (size_t)n, sizeof(double), by_value);
    return n;
}

void sync_report(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    struct clock_model m;
    double cost[ESTIMATES], slowest[ESTIMATES];
    for (int i = 0; i < ESTIMATES; i++) {
        dissemination_barrier(comm);
        double t0 = local_clock_now();
        clock_model_estimate(comm, &m);
        cost[i] = local_clock_now() - t0;
    }
    MPI_Reduce(cost, slowest, ESTIMATES, MPI_DOUBLE, MPI_MAX, 0, comm);

    static double starts[SKEW_STARTS], barrier[SKEW_STARTS], clock[SKEW_STARTS];
    static int late[SKEW_STARTS];
    for (int i = 0; i < 100; i++)
        dissemination_barrier(comm);
    for (int i = 0; i < SKEW_STARTS; i++) {
        dissemination_barrier(comm);
        starts[i] = clock_global(&m, local_clock_now());
    }
    spread(comm, starts, NULL, barrier);

    /* As the kernel starts repetitions: a process that finds the clock
     * already past its start was held up (a start the kernel repeats). */
    int yield = clock_host_oversubscribed(comm);
    double first = clock_global(&m, local_clock_now()) + 2e-3;
    MPI_Bcast(&first, 1, MPI_DOUBLE, 0, comm);
    for (int i = 0; i < SKEW_STARTS; i++) {
        double target = first + i * REPORT_WINDOW;
        late[i] = clock_global(&m, local_clock_now()) >= target;
        starts[i] = clock_wait_until(&m, target, yield);
    }
    int valid = spread(comm, starts, late, clock);
    if (rank == 0) {
        qsort(slowest, ESTIMATES, sizeof(double), by_value);
        int p95 = (int)(0.95 * (SKEW_STARTS - 1)), v95 = valid ? (int)(0.95 * (valid - 1)) : 0;
        printf("processes %d barrier_skew_us median %.3f p95 %.3f clock_skew_us median %.3f p95 %.3f "
               "clock_late_percent %.1f clock_estimate_ms %.3f\n", p, barrier[SKEW_STARTS / 2] * 1e6,
               barrier[p95] * 1e6, valid ? clock[valid / 2] * 1e6 : NAN, valid ? clock[v95] * 1e6 : NAN,
               100.0 * (SKEW_STARTS - valid) / SKEW_STARTS, slowest[ESTIMATES / 2] * 1e3);
    }
}
