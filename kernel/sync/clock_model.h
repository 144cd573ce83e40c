/* A global clock: every process's estimate of rank 0's clock, as ReproMPI's
 * HCA and SKaMPI's clock synchronisations make it, once per run and kept
 * up to date. Each process measures its offset to rank 0 by ping-pong
 * (Cristian: the root's time against the middle of the round trip, the
 * shortest of CLOCK_EXCHANGES round trips counting, whose half bounds the
 * error): CLOCK_FITPOINTS_FIRST fitpoints when the run first starts with
 * the clock, then one more at each resynchronisation and each start skew
 * measurement (sync/start_skew.c). Its model is a line through its latest
 * CLOCK_HISTORY fitpoints, spread over the run's time: offset(t) = offset
 * at the points' mean time + drift x (t - that time), by least squares
 * with each point weighed by its error bound (1 / (error^2 +
 * CLOCK_ERROR_FLOOR^2): a round trip the scheduler held up hardly counts).
 * The drift is shrunk towards 0 by a prior of CLOCK_DRIFT_PRIOR (ridge
 * regression): fitpoints that span a millisecond cannot tell a drift from
 * the offsets' noise, and an unfitted drift is better than a noisy one; as
 * the run's fitpoints span more time the fitted drift takes over. The
 * model's error bound at time t is the fit's own bound at its centre plus
 * the drift's uncertainty (its posterior standard deviation, the error
 * bounds taken as standard deviations) times the distance from the
 * centre: the bound grows as the model ages. When some process's bound
 * would have grown, since its newest fitpoint, by more than it was then
 * (and at least CLOCK_RESYNC_FLOOR) before a batch of starts ends, the
 * processes resynchronise (one fitpoint each) first: often while the
 * run's fitpoints span milliseconds, seldom once they span seconds (the
 * time to the next one is at least half their span). */
#ifndef NBH_CLOCK_MODEL_H
#define NBH_CLOCK_MODEL_H

#include <mpi.h>

#define CLOCK_FITPOINTS_FIRST 8    /* new fitpoints of the run's first estimate */
#define CLOCK_EXCHANGES 4          /* round trips per fitpoint; the shortest counts */
#define CLOCK_HISTORY 64           /* fitpoints a model is fitted to */
#define CLOCK_DRIFT_PRIOR 1e-4     /* 100 ppm: more than two quartz clocks drift apart */
#define CLOCK_ERROR_FLOOR 50e-9    /* below this an error bound is the clock's resolution */
#define CLOCK_RESYNC_FLOOR 1e-6    /* a bound that grew by less is not worth a resynchronisation */
#define NBH_CLOCK_SYNC_METHOD                                                                             \
    "sync=clock: once per run 8 fitpoints of each process against rank 0, each the shortest of 4 round "      \
    "trips (offset = rank 0's time - the middle of the round trip, bound = half the round trip); the model: " \
    "weighted least-squares line through the process's latest 64 fitpoints of the run, weights "            \
    "1/(bound^2 + (50 ns)^2), drift shrunk by a N(0, (100 ppm)^2) prior; its error bound grows from the "    \
    "fit's by the drift's posterior sd x the time since the fit's centre; before a batch of starts, when "   \
    "some process's bound would grow by more than its fit's bound (at least 1 us) before the batch ends, 1 " \
    "new fitpoint of every process (resynchronisation); windows of 2 x the median of 3 timed repetitions + " \
    "10 us, timed in an experiment's first round and kept for its later ones; a repetition is invalid if a " \
    "process reaches its start after its window began, or its wait ends after the next window began (and "    \
    "later than its model's error bound: held up while it waited); after each round of the run 1 fresh fitpoint of " \
    "each process measures the start skew of the round's starts independently of the models they waited "   \
    "on (and joins the history)"
/* On base only, every exchange complete before the estimate returns. */
#define NBH_CLOCK_TAG 32764

struct fitpoint {
    double local;   /* this process's clock at the middle of the round trip */
    double offset;  /* rank 0's clock minus local, then */
    double error;   /* half the round trip: a bound on the offset's error */
};

struct clock_model {
    double at;        /* local time the line is centred on */
    double offset;    /* rank 0's clock minus this process's, at `at` */
    double drift;     /* d offset / d local */
    double bound;     /* the offset's error bound at `at`: the fitpoints' bounds, weighed as they are */
    double drift_sd;  /* the drift's posterior standard deviation */
    double latest;    /* local time of the newest fitpoint */
};

/* Rank 0's clock at this process's local time t. */
static inline double clock_global(const struct clock_model *m, double t)
{
    return t + m->offset + m->drift * (t - m->at);
}

/* Model m's error bound at local time t: its fit's, grown by the drift's
 * uncertainty over the distance from the fit's centre. */
static inline double clock_bound_at(const struct clock_model *m, double t)
{
    return m->bound + m->drift_sd * (t > m->at ? t - m->at : m->at - t);
}

/* Waits until rank 0's clock reaches target, by model m; returns the global
 * time it saw then, and in *local this process's clock at that look. It
 * spins; with yield (more processes than cores on this host) it gives the
 * core away between looks (sched_yield), so that the processes sharing
 * its core get to their starts too. On a host with a core per process it
 * never yields: another program's process would take the core for a time
 * slice. */
double clock_wait_until(const struct clock_model *m, double target, int yield, double *local);
/* Collective on base: whether this host runs more of base's processes
 * than the cores they may use (sched_getaffinity). */
int clock_host_oversubscribed(MPI_Comm base);
/* The line through the first n fitpoints, at most CLOCK_HISTORY (pure; n >= 1). */
void clock_model_fit(const struct fitpoint *points, int n, struct clock_model *m);
/* Rank 0's clock at which model m's bound will have grown, since its
 * newest fitpoint, by its bound then (at least CLOCK_RESYNC_FLOOR): that
 * fitpoint's time on rank 0's clock plus that growth over the drift's
 * uncertainty (pure). */
double clock_resync_due(const struct clock_model *m);
/* Collective on base: the run's first estimate (CLOCK_FITPOINTS_FIRST new
 * fitpoints of every process), unless the run has one; then *m is the
 * line through this process's history (rank 0's: the identity). */
void clock_model_estimate(MPI_Comm base, struct clock_model *m);
/* Collective on base: one new fitpoint of every process into its history
 * (a resynchronisation), and *m the line through it. */
void clock_model_resync(MPI_Comm base, struct clock_model *m);
/* Rank 0: whether some process's model needs a resynchronisation before
 * rank 0's clock reaches t (the earliest clock_resync_due of the models
 * as they were last made); 0 before the run's first estimate. */
int clock_model_due(double t);
/* Collective on base: one new fitpoint of every process against rank 0
 * (rank 0's: its own time, offset and error 0), not in the history. */
struct fitpoint clock_model_fitpoint(MPI_Comm base);
/* Collective on base: adds fitpoint f to this process's history (rank 0
 * keeps none) and refits: a fitpoint taken after a round's starts
 * (start_skew.c) is the next model's most recent one. */
void clock_model_remember(MPI_Comm base, const struct fitpoint *f);
/* The line through this process's history so far (the identity without
 * one, and on rank 0). */
void clock_model_history(MPI_Comm base, struct clock_model *m);

#endif
