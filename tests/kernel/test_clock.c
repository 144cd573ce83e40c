/* The clock of the kernel's test build (build/<library>/nbh-kernel-testclock,
 * made by the Makefile from the kernel's objects with this file in place of
 * kernel/sync/local_clock.c; the measuring binary never has it): every
 * process's clock runs off rank 0's by a known offset and drift, so that
 * tests/kernel/test_kernel_clock_sync.py can check the clock models, and
 * one process can be forced to reach its starts late. Configured by
 *   NBH_TEST_CLOCK="offset_us=O,drift_ppm=D[,late_rank=R,late_us=U,late_every=N]
 *                   [,held_rank=H,held_us=V,held_every=M][,wrong_rank=W,wrong_us=E]"
 * process r's clock is m + r x O us + r x D ppm x m, m the machine's
 * CLOCK_MONOTONIC (one clock for every process of the machine, so rank 0's
 * true time is known everywhere); process R busy-waits U us before every
 * N-th start (N default 4) of a clock-synchronised batch; process H is
 * held up V us inside its wait for every M-th start (M default 4), at its
 * first look at the clock, as the scheduler may preempt a spinning
 * process (it got there in time, and started late); process W's
 * every model of rank 0's clock is E us ahead of what it estimated (so it
 * starts E us early, and its own lateness cannot tell). Every model
 * check prints, from rank 0,
 *   nbh-kernel: test clock: experiment ID WHEN: largest error E us (bound B us)
 * E the largest |model's rank-0 time - rank 0's true time| of any process,
 * B the largest error bound of the models then (clock_bound_at,
 * clock_model.h); WHEN is estimate, resync or end. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sync/clock_model.h"
#include "sync/local_clock.h"

static struct {
    int ready, rank;
    double offset, drift, late_us, wrong_us, held_us;
    int late_rank, late_every, wrong_rank, held_rank, held_every, held_now;
} skew = {.late_rank = -1, .late_every = 4, .wrong_rank = -1, .held_rank = -1, .held_every = 4};

static double monotonic(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void configure(void)
{
    if (skew.ready)
        return;
    skew.ready = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &skew.rank);
    const char *text = getenv("NBH_TEST_CLOCK");
    for (const char *s = text; s && *s;) {
        char name[32];
        double value;
        int used;
        if (sscanf(s, "%31[a-z_]=%lf%n", name, &value, &used) != 2)
            break;
        if (strcmp(name, "offset_us") == 0)
            skew.offset = value * 1e-6;
        else if (strcmp(name, "drift_ppm") == 0)
            skew.drift = value * 1e-6;
        else if (strcmp(name, "late_rank") == 0)
            skew.late_rank = (int)value;
        else if (strcmp(name, "late_us") == 0)
            skew.late_us = value;
        else if (strcmp(name, "wrong_rank") == 0)
            skew.wrong_rank = (int)value;
        else if (strcmp(name, "wrong_us") == 0)
            skew.wrong_us = value;
        else if (strcmp(name, "late_every") == 0)
            skew.late_every = (int)value > 0 ? (int)value : 1;
        else if (strcmp(name, "held_rank") == 0)
            skew.held_rank = (int)value;
        else if (strcmp(name, "held_us") == 0)
            skew.held_us = value;
        else if (strcmp(name, "held_every") == 0)
            skew.held_every = (int)value > 0 ? (int)value : 1;
        s += used;
        s += *s == ',';
    }
}

static double skewed(double m)
{
    return m + skew.rank * (skew.offset + skew.drift * m);
}

double local_clock_now(void)
{
    configure();
    return skewed(monotonic());
}

void local_clock_audit(MPI_Comm base, const struct clock_model *model, long id, const char *when)
{
    configure();
    double m = monotonic();
    double mine[2] = {fabs(clock_global(model, skewed(m)) - m), clock_bound_at(model, skewed(m))}, largest[2];
    MPI_Reduce(mine, largest, 2, MPI_DOUBLE, MPI_MAX, 0, base);
    int rank;
    MPI_Comm_rank(base, &rank);
    if (rank == 0)
        fprintf(stderr, "nbh-kernel: test clock: experiment %ld %s: largest error %.3f us (bound %.3f us)\n", id,
                when, largest[0] * 1e6, largest[1] * 1e6);
}

static void busy_wait(double us)
{
    double until = monotonic() + us * 1e-6;
    while (monotonic() < until)
        ;
}

void local_clock_stall(long attempt)
{
    configure();
    skew.held_now = skew.rank == skew.held_rank && attempt % skew.held_every == skew.held_every - 1;
    if (skew.rank == skew.late_rank && attempt % skew.late_every == skew.late_every - 1)
        busy_wait(skew.late_us);
}

void local_clock_waiting(void)
{
    if (!skew.held_now)
        return;
    skew.held_now = 0;
    busy_wait(skew.held_us);
}

void local_clock_distort(struct clock_model *m)
{
    configure();
    if (skew.rank == skew.wrong_rank)
        m->offset += skew.wrong_us * 1e-6;
}
