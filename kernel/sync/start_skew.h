/* How far apart the processes really start a repetition, measured
 * independently of what made them start (SPEC 8.2; docs/kernel.md). A
 * clock start's own lateness is read on the clock model it waited on, so
 * a model that is off by some microseconds on one process shows nothing:
 * near zero by construction. Here every process records its local clock
 * at each start (the barrier's exit, or the look at which its wait for the
 * window ended), into room made before the repetitions (nothing is
 * allocated between a start and its timing); an experiment's round hands
 * its starts over when it is done (start_skew_defer), and its row of
 * PREFIX.preparation.csv waits for them. After each round of the run
 * (start_skew_flush: once per round, not per experiment) every process
 * measures a fresh offset to rank 0 (one fitpoint, the shortest of
 * CLOCK_EXCHANGES round trips: not used by any model before) and puts the
 * round's starts on rank 0's clock with it, and with the drift of the
 * run's history to carry the offset back to each start. Per start the
 * latest minus the earliest process is the skew; per experiment round the
 * median over its valid repetitions. The measurement's resolution is the
 * sum of the two largest error bounds of the processes at the
 * experiment's first start: the fresh offset's (half its round trip) plus
 * the drift's uncertainty over the time back to that start. The fresh
 * fitpoint then joins the history: the next model's most recent one. */
#ifndef NBH_START_SKEW_H
#define NBH_START_SKEW_H

#include "output.h"
#include "sync/sync.h"

/* Room for n more starts (when s->measure): called before a batch. */
void start_skew_reserve(struct sync_run *s, long n);
/* Records this process's local clock at a start (when s->measure). */
void start_skew_record(struct sync_run *s, double local);
/* On every process, after an experiment's round (when s->measure): its
 * starts first .. first + n - 1, valid[i] for each, and (rank 0) its row
 * of PREFIX.preparation.csv, which start_skew_flush completes and writes. */
void start_skew_defer(const struct sync_run *s, const struct experiment *e, int round, long first,
                      const unsigned char *valid, long n, const struct preparation *row);
/* Collective on base, after a round of the run: measures the skew of the
 * deferred starts, and rank 0 writes their rows into out (measured_skew,
 * skew_bound; a clock start's sync_seconds gets its share of the
 * measurement's cost, slowest process) and commits them. Returns 0, or the
 * errno of a table that could not be written (on every process). Nothing
 * without deferred starts. */
int start_skew_flush(MPI_Comm base, struct output *out);
/* The median of values[i] over the i < n with valid[i] set (sorted in place
 * where kept); -1 without any (pure). */
double start_skew_median(double *values, const unsigned char *valid, long n);
/* Per start, rank 0 gets the latest minus the earliest process of the
 * local starts[0 .. n - 1] put on rank 0's clock with a fresh offset
 * (spread, n values; NULL elsewhere) and the resolution at the earliest
 * start (*bound); the fresh fitpoint joins the history. Collective on base. */
void start_skew_spread(MPI_Comm base, const double *starts, long n, double *spread, double *bound);

#endif
