/* Arrival patterns (registry/arrivals.csv, SPEC 8.2): after the common
 * start of a repetition each process waits its own delay, then calls the
 * operation. The delay is a busy wait on the clock the repetition is timed
 * with, inside the timed region, and is timed itself (delay_seconds).
 *   none      0
 *   uniform   d x u, u uniform in [0, 1), a new draw per repetition from the
 *             process's own stream of the round: splitmix64 seeded with its
 *             round's seed (round_seed of its recorded seed, PREFIX.seeds.csv)
 *             XOR NBH_ARRIVAL_STREAM, so no round replays another's delays
 *             (the arrival study's benchmark: rand() % max before every call)
 *   one_late  d for the process late_rank, 0 for every other one
 *   ramp      r / (p - 1) x d for the process of rank r (0 when p = 1)
 * Ranks are those of the topology communicator. Pure: no MPI.
 * On a host with more processes than cores the wait gives the core away
 * between looks at the clock (as the clock start does): a spinning process
 * there would take a core from the very processes it is meant to keep
 * waiting, and slow down processes it has nothing to do with. */
#ifndef NBH_ARRIVAL_H
#define NBH_ARRIVAL_H

#include "experiment.h"
#include "seeds.h"

/* Keeps the delays' stream apart from the RAND orders' (same seed). */
#define NBH_ARRIVAL_STREAM 0x5851f42d4c957f2dULL
#define NBH_ARRIVAL_FORMULA                                                                                 \
    "uniform: delay k of a process in a round = arrival_us x (x_k >> 11) / 2^53, x_k the k-th output (k "   \
    "from 0, one per attempt of the round, warm-up and invalid ones included: the attempt of "             \
    "PREFIX.delays.csv) of the splitmix64 stream seeded with the process's seed of the round "             \
    "(round_seed_formula) XOR 0x5851f42d4c957f2d"

struct arrival_plan {
    enum arrival pattern;
    double max_seconds;  /* d */
    int late_rank;
    int rank, nprocs;    /* this process, in the topology communicator */
    struct rng rng;      /* uniform: this process's stream of the round */
    int yield;           /* more processes than cores on this host: wait yielding (timing_loop.c) */
};

/* The plan of process `rank` (of nprocs) in round `round` of experiment e. */
void arrival_plan_init(struct arrival_plan *a, const struct experiment *e, int rank, int nprocs, int round);
/* This process's delay in its next repetition, seconds. */
double arrival_next_delay(struct arrival_plan *a);
/* Whether the pattern delays anyone (not none, d > 0). */
int arrival_delays(const struct arrival_plan *a);

#endif
