#include "busy_work.h"

#include <math.h>
#include <time.h>

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

double calibrate_countdown_rate(void)
{
    const uint64_t steps = 1000000;  /* about 0.3 to 1 ms on current cores */
    double best = INFINITY;
    busy_countdown(steps);  /* warm up: clock ramp, page faults */
    for (int trial = 0; trial < 30; trial++) {
        double t0 = now_seconds();
        busy_countdown(steps);
        double t = now_seconds() - t0;
        if (t < best)
            best = t;
    }
    return (double)steps / (best * 1e6);
}

uint64_t countdown_steps(double us, double rate)
{
    return us <= 0 ? 0 : (uint64_t)llround(us * rate);
}
