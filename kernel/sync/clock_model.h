/* A global clock: every process's estimate of rank 0's clock, as ReproMPI's
 * and SKaMPI's clock synchronisations make it. Each process measures its
 * offset to rank 0 by ping-pong (Cristian: the root's time against the
 * middle of the round trip, the shortest of CLOCK_EXCHANGES round trips
 * counting, whose half bounds the error) at CLOCK_FITPOINTS moments
 * (CLOCK_FITPOINTS_FIRST in the run's first estimate), and fits a line
 * through its latest CLOCK_HISTORY offsets (this experiment's, the one
 * taken after the experiment before (sync/start_skew.c), and the run's
 * before them: spread over the run's time): offset(t) = offset at the
 * points' mean time + drift x (t - that time), by least squares with each
 * point weighed by its
 * error bound (1 / (error^2 + CLOCK_ERROR_FLOOR^2): a round trip the
 * scheduler held up hardly counts). The drift is shrunk towards 0 by a
 * prior of CLOCK_DRIFT_PRIOR (ridge regression): fitpoints that span a
 * millisecond cannot tell a drift from the offsets' noise, and an unfitted
 * drift is better than a noisy one; as the run's fitpoints span more time
 * the fitted drift takes over. */
#ifndef NBH_CLOCK_MODEL_H
#define NBH_CLOCK_MODEL_H

#include <mpi.h>

#define CLOCK_FITPOINTS_FIRST 8 /* new fitpoints of the run's first estimate */
#define CLOCK_FITPOINTS 1       /* new fitpoints of a later one, unless the experiment before left one */
#define CLOCK_EXCHANGES 4       /* round trips per fitpoint; the shortest counts */
#define CLOCK_HISTORY 64        /* fitpoints a model is fitted to */
#define CLOCK_DRIFT_PRIOR 1e-4  /* 100 ppm: more than two quartz clocks drift apart */
#define CLOCK_ERROR_FLOOR 50e-9 /* below this an error bound is the clock's resolution */
#define NBH_CLOCK_SYNC_METHOD                                                                             \
    "sync=clock: per experiment round 1 new fitpoint (the run's first estimate: 8; none where the experiment " \
    "round before ended with one) of each process against "                                                  \
    "rank 0, each the shortest of 4 round trips (offset = rank 0's time - the middle of the round trip, "     \
    "bound = half the round trip); the model: weighted least-squares line through the process's latest 64 "  \
    "fitpoints of the run, weights 1/(bound^2 + (50 ns)^2), drift shrunk by a N(0, (100 ppm)^2) prior; "     \
    "windows of 2 x the median of 3 timed repetitions + 10 us, timed in an experiment's first round and "    \
    "kept for its later ones; repetitions invalid if a process reaches its start after its window began; "  \
    "after the repetitions 1 fresh fitpoint of each process measures the start skew independently of the "  \
    "model (and joins the history)"
/* On base only, every exchange complete before the estimate returns. */
#define NBH_CLOCK_TAG 32764

struct fitpoint {
    double local;   /* this process's clock at the middle of the round trip */
    double offset;  /* rank 0's clock minus local, then */
    double error;   /* half the round trip: a bound on the offset's error */
};

struct clock_model {
    double at;      /* local time the line is centred on */
    double offset;  /* rank 0's clock minus this process's, at `at` */
    double drift;   /* d offset / d local */
    double bound;   /* the offset's error bound at `at`: the fitpoints' bounds, weighed as they are */
};

/* Rank 0's clock at this process's local time t. */
static inline double clock_global(const struct clock_model *m, double t)
{
    return t + m->offset + m->drift * (t - m->at);
}

/* Waits until rank 0's clock reaches target, by model m; returns the global
 * time it saw then. It spins; with yield (more processes than cores on
 * this host) it gives the core away between looks (sched_yield), so that
 * the processes sharing its core get to their starts too. On a host with
 * a core per process it never yields: another program's process would
 * take the core for a time slice. */
double clock_wait_until(const struct clock_model *m, double target, int yield);
/* Collective on base: whether this host runs more of base's processes
 * than the cores they may use (sched_getaffinity). */
int clock_host_oversubscribed(MPI_Comm base);
/* The line through the first n fitpoints, at most CLOCK_HISTORY (pure; n >= 1). */
void clock_model_fit(const struct fitpoint *points, int n, struct clock_model *m);
/* Collective on base: measures CLOCK_FITPOINTS (the first time
 * CLOCK_FITPOINTS_FIRST) new fitpoints of every process against rank 0,
 * adds them to the process's history (kept for the run) and fits its
 * model; rank 0's is the identity. None where the history's latest
 * fitpoint was taken right after the experiment before (clock_model_recent):
 * that one is the resynchronisation, and a fitpoint more would only cost. */
void clock_model_estimate(MPI_Comm base, struct clock_model *m);
/* Whether the latest fitpoint of the history was taken right after an
 * experiment's repetitions (start_skew.c sets it; an experiment that
 * takes none clears it: sync/barrier.c). */
void clock_model_recent(int recent);
/* Collective on base: one new fitpoint of every process against rank 0
 * (rank 0's: its own time, offset and error 0), not in the history. */
struct fitpoint clock_model_fitpoint(MPI_Comm base);
/* Adds fitpoint f to this process's history (rank 0 keeps none): a
 * fitpoint taken after an experiment's repetitions (start_skew.c) is
 * the next estimate's most recent one. */
void clock_model_remember(MPI_Comm base, const struct fitpoint *f);
/* The line through this process's history so far (the identity without
 * one, and on rank 0). */
void clock_model_history(MPI_Comm base, struct clock_model *m);

#endif
