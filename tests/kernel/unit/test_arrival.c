/* Arrival patterns (kernel/arrival.c) and the clock model's fit
 * (kernel/sync/clock_model.c): pure functions. */
#include <math.h>
#include <string.h>

#include "arrival.h"
#include "sync/clock_model.h"
#include "sync/start_skew.h"
#include "tap.h"

static struct experiment experiment(enum arrival pattern, double us, int late_rank)
{
    struct experiment e;
    memset(&e, 0, sizeof(e));
    e.id = 3, e.seed = 2017, e.arrival = pattern, e.arrival_us = us, e.late_rank = late_rank;
    return e;
}

/* Each round draws its own delays: 4 rounds of 2 repetitions give 8
 * distinct delays per process (the stream restarted from the run's seed in
 * every round gave 2), and a twin draws other delays than its original. */
static void test_rounds_draw_anew(void)
{
    struct experiment e = experiment(ARRIVAL_uniform, 100, -1), twin = e;
    twin.id = 4, twin.twin = 1, twin.twin_of = e.id;
    double seen[8], twins[8];
    int distinct = 1, apart = 1, again = 1;
    for (int round = 1; round <= 4; round++) {
        struct arrival_plan a, b, t;
        arrival_plan_init(&a, &e, 1, 4, round);
        arrival_plan_init(&b, &e, 1, 4, round);
        arrival_plan_init(&t, &twin, 1, 4, round);
        for (int k = 0; k < 2; k++) {
            seen[2 * (round - 1) + k] = arrival_next_delay(&a);
            twins[2 * (round - 1) + k] = arrival_next_delay(&t);
            again &= arrival_next_delay(&b) == seen[2 * (round - 1) + k];
        }
    }
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 8; j++) {
            distinct &= i == j || seen[i] != seen[j];
            apart &= seen[i] != twins[j];
        }
    CHECK(distinct, "uniform: 4 rounds of 2 repetitions draw 8 distinct delays, no round replays another");
    CHECK(again, "uniform: a round's delays are a function of (run seed, id, rank, round)");
    CHECK(apart, "uniform: a twin draws other delays than its original, under its own id");
}

static void test_patterns(void)
{
    struct experiment e = experiment(ARRIVAL_uniform, 100, -1);
    struct arrival_plan a, b, c;
    arrival_plan_init(&a, &e, 1, 4, 1);
    arrival_plan_init(&b, &e, 1, 4, 1);
    arrival_plan_init(&c, &e, 2, 4, 1);
    int inside = 1, same = 1, differ = 0;
    double sum = 0;
    for (int k = 0; k < 10000; k++) {
        double x = arrival_next_delay(&a), y = arrival_next_delay(&b), z = arrival_next_delay(&c);
        inside &= x >= 0 && x < 100e-6;
        same &= x == y;
        differ += x != z;
        sum += x;
    }
    CHECK(inside, "uniform delays lie in [0, d)");
    CHECK(same, "uniform: the same seed, id and rank give the same delays");
    CHECK(differ > 9900, "uniform: another process draws other delays");
    CHECK(fabs(sum / 10000 - 50e-6) < 2e-6, "uniform: the delays average d/2 (%.2f us)", sum / 10000 * 1e6);
    struct rng stream = {process_seed(2017, 3, 1) ^ NBH_ARRIVAL_STREAM};
    arrival_plan_init(&a, &e, 1, 4, 1);
    CHECK(arrival_next_delay(&a) == a.max_seconds * (double)(rng_next(&stream) >> 11) * 0x1.0p-53,
          "uniform: a delay is d x the next draw of the process's seeded stream (NBH_ARRIVAL_FORMULA)");
    struct rng later = {round_seed(process_seed(2017, 3, 1), 3) ^ NBH_ARRIVAL_STREAM};
    arrival_plan_init(&a, &e, 1, 4, 3);
    CHECK(arrival_next_delay(&a) == a.max_seconds * (double)(rng_next(&later) >> 11) * 0x1.0p-53,
          "uniform: round 3 draws from the process's seed of round 3 (NBH_ROUND_SEED_FORMULA)");
    test_rounds_draw_anew();

    e = experiment(ARRIVAL_one_late, 40, 2);
    int only = 1;
    for (int r = 0; r < 5; r++) {
        arrival_plan_init(&a, &e, r, 5, 1);
        only &= arrival_next_delay(&a) == (r == 2 ? a.max_seconds : 0) && a.max_seconds == 40 * 1e-6;
    }
    CHECK(only, "one_late: late_rank waits d, every other process nothing");
    e = experiment(ARRIVAL_ramp, 30, -1);
    arrival_plan_init(&a, &e, 2, 4, 1);
    arrival_plan_init(&b, &e, 0, 1, 1);
    CHECK(fabs(arrival_next_delay(&a) - 20e-6) < 1e-18 && arrival_next_delay(&b) == 0,
          "ramp: r/(p-1) x d; nothing on one process");
    e = experiment(ARRIVAL_none, 0, -1);
    arrival_plan_init(&a, &e, 1, 4, 1);
    CHECK(arrival_next_delay(&a) == 0 && !arrival_delays(&a), "none: no delay");
}

static void test_clock_fit(void)
{
    struct fitpoint points[CLOCK_HISTORY];
    /* 10 s of fitpoints of a clock 5 s behind, drifting 20 ppm */
    for (int i = 0; i < 40; i++)
        points[i] = (struct fitpoint){1000 + 0.25 * i, 5 + 20e-6 * (0.25 * i), 1e-6};
    struct clock_model m;
    clock_model_fit(points, 40, &m);
    CHECK(fabs(m.drift - 20e-6) < 0.1e-6 && fabs(clock_global(&m, 1010) - (1010 + 5 + 200e-6)) < 0.1e-6,
          "a drift over seconds of fitpoints is fitted (%.3g)", m.drift);
    /* 1 ms of fitpoints whose offsets scatter by 1 us: no drift to see */
    for (int i = 0; i < 8; i++)
        points[i] = (struct fitpoint){1000 + 125e-6 * i, 5 + (i % 2 ? 1e-6 : -1e-6), 1e-6};
    clock_model_fit(points, 8, &m);
    CHECK(fabs(m.drift) < 10e-6 && fabs(m.offset - 5) < 1e-9,
          "fitpoints of a millisecond give the offset and almost no drift (%.3g, not least squares' 7.6e-4)",
          m.drift);
    /* one round trip held up for a millisecond: its offset is 1 ms off */
    points[8] = (struct fitpoint){1000 + 500e-6, 5 + 1e-3, 500e-6};
    clock_model_fit(points, 9, &m);
    CHECK(fabs(clock_global(&m, 1000) - 1005) < 0.01e-6, "a point with a wide error bound hardly counts (%.3g s)",
          clock_global(&m, 1000) - 1005);
}

/* The model's error bound as it ages, and when it calls for a
 * resynchronisation (clock_bound_at, clock_resync_due). */
static void test_clock_bound(void)
{
    struct fitpoint points[64];
    /* 8 fitpoints over 1 ms, bounds 2 us: the drift is the prior's (100 ppm) */
    for (int i = 0; i < 8; i++)
        points[i] = (struct fitpoint){1000 + 125e-6 * i, 5, 2e-6};
    struct clock_model m;
    clock_model_fit(points, 8, &m);
    CHECK(fabs(m.bound - 2e-6) < 1e-12 && m.drift_sd > 0.99 * CLOCK_DRIFT_PRIOR && m.drift_sd <= CLOCK_DRIFT_PRIOR,
          "a millisecond of fitpoints leaves the drift's uncertainty at the prior's (%.3g)", m.drift_sd);
    CHECK(fabs(clock_bound_at(&m, m.at + 0.01) - (m.bound + 0.01 * m.drift_sd)) < 1e-12 &&
          fabs(clock_bound_at(&m, m.at - 0.01) - clock_bound_at(&m, m.at + 0.01)) < 1e-12,
          "the bound grows by the drift's uncertainty over the distance from the fit's centre");
    CHECK(fabs(m.latest - (1000 + 7 * 125e-6)) < 1e-12, "the newest fitpoint's time is kept");
    /* due when the bound has grown since the newest fitpoint by what it was then */
    double due = clock_resync_due(&m), then = clock_bound_at(&m, m.latest);
    CHECK(fabs(due - clock_global(&m, m.latest) - then / m.drift_sd) < 1e-9,
          "a resynchronisation is due %.1f ms after the newest fitpoint", (due - clock_global(&m, m.latest)) * 1e3);
    double first_gap = due - clock_global(&m, m.latest);
    /* 40 fitpoints over 10 s: the drift is known, the next one far off */
    for (int i = 0; i < 40; i++)
        points[i] = (struct fitpoint){1000 + 0.25 * i, 5 + 20e-6 * (0.25 * i), 2e-6};
    clock_model_fit(points, 40, &m);
    double gap = clock_resync_due(&m) - clock_global(&m, m.latest);
    CHECK(m.drift_sd < 1e-6 && gap > 100 * first_gap,
          "fitpoints spread over seconds: the drift's uncertainty %.2g, the next resynchronisation %.0f s away",
          m.drift_sd, gap);
    /* the true error of the model stays within its bound as it ages: a
     * clock drifting 20 ppm, fitted on a millisecond (the prior shrinks the
     * drift to almost 0), checked 0.1 s later */
    for (int i = 0; i < 8; i++)
        points[i] = (struct fitpoint){1000 + 125e-6 * i, 5 + 20e-6 * (125e-6 * i), 2e-6};
    clock_model_fit(points, 8, &m);
    double t = m.latest + 0.1, truth = t + 5 + 20e-6 * (t - 1000);
    CHECK(fabs(clock_global(&m, t) - truth) <= clock_bound_at(&m, t),
          "0.1 s on, the model is %.2f us off, within its bound of %.2f us", fabs(clock_global(&m, t) - truth) * 1e6,
          clock_bound_at(&m, t) * 1e6);
    /* rank 0's model: no drift to be uncertain of, never due */
    struct clock_model identity = {0, 0, 0, 0, 0, 0};
    CHECK(isinf(clock_resync_due(&identity)), "rank 0's identity model is never due");
}

static void test_skew_median(void)
{
    double values[] = {5, 1, 9, 3, 7};
    unsigned char valid[] = {1, 0, 1, 1, 0};
    CHECK(start_skew_median(values, valid, 5) == 5, "the median of the valid starts' spreads (5, 9, 3)");
    double none[] = {1, 2};
    unsigned char invalid[] = {0, 0};
    CHECK(start_skew_median(none, invalid, 2) == -1, "no valid start: -1");
}

void test_arrival(void)
{
    test_patterns();
    test_clock_fit();
    test_clock_bound();
    test_skew_median();
}
