#include "sync/clock_model.h"

#include <math.h>
#include <sched.h>
#include <stdlib.h>

#include "sync/local_clock.h"

void clock_model_fit(const struct fitpoint *points, int n, struct clock_model *m)
{
    if (n > CLOCK_HISTORY)
        n = CLOCK_HISTORY;
    /* Each point weighs by its error bound: one round trip held up by the
     * scheduler says little about the offset. */
    double w[CLOCK_HISTORY], sum = 0, mean_t = 0, mean_offset = 0;
    for (int i = 0; i < n; i++) {
        w[i] = 1 / (points[i].error * points[i].error + CLOCK_ERROR_FLOOR * CLOCK_ERROR_FLOOR);
        sum += w[i];
    }
    for (int i = 0; i < n; i++) {
        mean_t += w[i] / sum * points[i].local;
        mean_offset += w[i] / sum * points[i].offset;
    }
    double stt = 0, sto = 0, bound = 0;
    for (int i = 0; i < n; i++) {
        bound += w[i] / sum * points[i].error;
        stt += w[i] * (points[i].local - mean_t) * (points[i].local - mean_t);
        sto += w[i] * (points[i].local - mean_t) * (points[i].offset - mean_offset);
    }
    /* the prior: drift ~ N(0, CLOCK_DRIFT_PRIOR^2) */
    double prior = 1 / (CLOCK_DRIFT_PRIOR * CLOCK_DRIFT_PRIOR);
    *m = (struct clock_model){.at = mean_t, .offset = mean_offset, .drift = sto / (stt + prior), .bound = bound};
}

/* The run's fitpoints of this process, oldest first overwritten. */
static struct fitpoint history[CLOCK_HISTORY];
static int recorded;

/* Rank 0 serves each client in turn: a go, then CLOCK_EXCHANGES round
 * trips, each answered with rank 0's clock. The client times them. */
static void serve(MPI_Comm base, int clients)
{
    for (int c = 1; c <= clients; c++) {
        MPI_Send(NULL, 0, MPI_BYTE, c, NBH_CLOCK_TAG, base);
        for (int k = 0; k < CLOCK_EXCHANGES; k++) {
            MPI_Recv(NULL, 0, MPI_BYTE, c, NBH_CLOCK_TAG, base, MPI_STATUS_IGNORE);
            double t = local_clock_now();
            MPI_Send(&t, 1, MPI_DOUBLE, c, NBH_CLOCK_TAG, base);
        }
    }
}

static struct fitpoint measure(MPI_Comm base)
{
    struct fitpoint best = {0, 0, INFINITY};
    MPI_Recv(NULL, 0, MPI_BYTE, 0, NBH_CLOCK_TAG, base, MPI_STATUS_IGNORE);
    for (int k = 0; k < CLOCK_EXCHANGES; k++) {
        double root, t1 = local_clock_now();
        MPI_Send(NULL, 0, MPI_BYTE, 0, NBH_CLOCK_TAG, base);
        MPI_Recv(&root, 1, MPI_DOUBLE, 0, NBH_CLOCK_TAG, base, MPI_STATUS_IGNORE);
        double t2 = local_clock_now();
        if ((t2 - t1) / 2 < best.error)
            best = (struct fitpoint){(t1 + t2) / 2, root - (t1 + t2) / 2, (t2 - t1) / 2};
    }
    return best;
}

struct fitpoint clock_model_fitpoint(MPI_Comm base)
{
    int rank, p;
    MPI_Comm_rank(base, &rank);
    MPI_Comm_size(base, &p);
    if (rank != 0)
        return measure(base);
    serve(base, p - 1);
    return (struct fitpoint){local_clock_now(), 0, 0};
}

void clock_model_remember(MPI_Comm base, const struct fitpoint *f)
{
    int rank;
    MPI_Comm_rank(base, &rank);
    if (rank != 0)
        history[recorded++ % CLOCK_HISTORY] = *f;
}

void clock_model_history(MPI_Comm base, struct clock_model *m)
{
    int rank;
    MPI_Comm_rank(base, &rank);
    *m = (struct clock_model){0, 0, 0, 0};
    if (rank != 0 && recorded > 0)
        clock_model_fit(history, recorded < CLOCK_HISTORY ? recorded : CLOCK_HISTORY, m);
}

/* Whether the history's latest fitpoint was taken right after the
 * experiment before (set and cleared alike on every process: they run the
 * same experiments). */
static int latest_is_recent;

void clock_model_recent(int recent)
{
    latest_is_recent = recent;
}

void clock_model_estimate(MPI_Comm base, struct clock_model *m)
{
    static int estimates;  /* the same count on every process */
    int fitpoints = estimates++ ? (latest_is_recent ? 0 : CLOCK_FITPOINTS) : CLOCK_FITPOINTS_FIRST;
    latest_is_recent = 0;
    for (int f = 0; f < fitpoints; f++) {
        struct fitpoint point = clock_model_fitpoint(base);
        clock_model_remember(base, &point);
    }
    clock_model_history(base, m);
}

double clock_wait_until(const struct clock_model *m, double target, int yield)
{
    double t = clock_global(m, local_clock_now());
    while (t < target) {
        if (yield)
            sched_yield();
        t = clock_global(m, local_clock_now());
    }
    return t;
}

int clock_host_oversubscribed(MPI_Comm base)
{
    static int known = -1;  /* the kernel's base is always MPI_COMM_WORLD: asked once per run */
    if (known >= 0)
        return known;
    MPI_Comm host;
    MPI_Comm_split_type(base, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
    int here, cores = 0, over, any;
    MPI_Comm_size(host, &here);
    cpu_set_t mine, all;
    CPU_ZERO(&all);
    if (sched_getaffinity(0, sizeof(mine), &mine) == 0)
        CPU_OR(&all, &all, &mine);
    /* the union of the host's processes' cores */
    MPI_Allreduce(MPI_IN_PLACE, &all, (int)sizeof(all), MPI_BYTE, MPI_BOR, host);
    cores = CPU_COUNT(&all);
    over = cores > 0 && here > cores;
    MPI_Allreduce(&over, &any, 1, MPI_INT, MPI_MAX, host);
    MPI_Comm_free(&host);
    known = any;
    return any;
}
