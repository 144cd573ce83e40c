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
    /* the prior: drift ~ N(0, CLOCK_DRIFT_PRIOR^2); the posterior's precision is the prior's plus the points' */
    double prior = 1 / (CLOCK_DRIFT_PRIOR * CLOCK_DRIFT_PRIOR);
    double latest = points[0].local;
    for (int i = 1; i < n; i++)
        latest = points[i].local > latest ? points[i].local : latest;
    *m = (struct clock_model){.at = mean_t, .offset = mean_offset, .drift = sto / (stt + prior), .bound = bound,
                              .drift_sd = 1 / sqrt(stt + prior), .latest = latest};
}

double clock_resync_due(const struct clock_model *m)
{
    if (m->drift_sd <= 0)
        return INFINITY;
    double then = clock_bound_at(m, m->latest);
    double growth = then > CLOCK_RESYNC_FLOOR ? then : CLOCK_RESYNC_FLOOR;
    return clock_global(m, m->latest) + growth / m->drift_sd;
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

/* Rank 0: the earliest rank-0 time at which some process's model is due
 * for a resynchronisation; -1 before the run's first estimate. */
static double due = -1;

/* Adds a fitpoint to this process's history (rank 0 keeps none). */
static void keep(MPI_Comm base, const struct fitpoint *f)
{
    int rank;
    MPI_Comm_rank(base, &rank);
    if (rank != 0)
        history[recorded++ % CLOCK_HISTORY] = *f;
}

/* Collective on base: every process's model refitted to its history, rank
 * 0 told when the first of them is due. */
static void refit(MPI_Comm base, struct clock_model *m)
{
    int rank;
    MPI_Comm_rank(base, &rank);
    clock_model_history(base, m);
    double mine = rank == 0 ? INFINITY : clock_resync_due(m);
    MPI_Reduce(&mine, &due, 1, MPI_DOUBLE, MPI_MIN, 0, base);
}

void clock_model_remember(MPI_Comm base, const struct fitpoint *f)
{
    keep(base, f);
    struct clock_model m;
    refit(base, &m);
}

void clock_model_history(MPI_Comm base, struct clock_model *m)
{
    int rank;
    MPI_Comm_rank(base, &rank);
    *m = (struct clock_model){0, 0, 0, 0, 0, 0};
    if (rank != 0 && recorded > 0)
        clock_model_fit(history, recorded < CLOCK_HISTORY ? recorded : CLOCK_HISTORY, m);
}

void clock_model_estimate(MPI_Comm base, struct clock_model *m)
{
    static int estimated;  /* the same on every process */
    if (estimated) {
        clock_model_history(base, m);
        return;
    }
    estimated = 1;
    for (int f = 0; f < CLOCK_FITPOINTS_FIRST; f++) {
        struct fitpoint point = clock_model_fitpoint(base);
        keep(base, &point);
    }
    refit(base, m);
}

void clock_model_resync(MPI_Comm base, struct clock_model *m)
{
    struct fitpoint point = clock_model_fitpoint(base);
    keep(base, &point);
    refit(base, m);
}

int clock_model_due(double t)
{
    return due >= 0 && t >= due;
}

double clock_wait_until(const struct clock_model *m, double target, int yield, double *local)
{
    double l = local_clock_now(), t = clock_global(m, l);
    while (t < target) {
        if (yield)
            sched_yield();
        local_clock_waiting();
        l = local_clock_now();
        t = clock_global(m, l);
    }
    *local = l;
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
