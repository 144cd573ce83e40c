/* How far apart the processes really start a repetition, measured
 * independently of what made them start (SPEC 8.2; docs/kernel.md). A
 * clock start's own lateness is read on the clock model it waited on, so
 * a model that is off by some microseconds on one process shows nothing:
 * near zero by construction. Here every process records its local clock
 * at each start (the barrier's exit, or the moment its wait for the window
 * ended); after the repetitions it measures a fresh offset to rank 0 (one
 * fitpoint, the shortest of CLOCK_EXCHANGES round trips: not used by any
 * model before) and puts its starts on rank 0's clock with it, and with
 * the drift of the run's history to carry the offset back to each start
 * (over an experiment's span, milliseconds, a drift error of a ppm moves
 * nothing measurable). Per start the latest minus the earliest process is
 * the skew; the measurement's resolution is the sum of the two largest
 * error bounds of the fresh offsets (half their round trips). The fresh
 * fitpoint then joins the history: it is the next estimate's most recent. */
#ifndef NBH_START_SKEW_H
#define NBH_START_SKEW_H

#include "sync/sync.h"

/* Records this process's local clock at a start (when s->measure). */
void start_skew_record(struct sync_run *s, double local);
/* Collective on s->base, after the experiment's starts: rank 0 gets
 * s->spread (one per start) and s->skew_bound. */
void start_skew_measure(struct sync_run *s);
/* Rank 0: the median spread of the starts first + i whose valid[i] is
 * set, i < n; -1 without any. */
double start_skew_median(const struct sync_run *s, long first, const unsigned char *valid, long n);

#endif
