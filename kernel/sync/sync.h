/* How a repetition starts (registry/syncs.csv, SPEC 8.2): one file per
 * method behind this interface, as ReproMPI's sync/ modules.
 *   barrier.c  the dissemination barrier; each process times from its own
 *              exit (the study's Algorithm 1)
 *   clock.c    windows of a global clock: every process estimates its
 *              clock's offset and drift to rank 0 once per run and keeps
 *              the model up to date (clock_model.c), and repetition k of
 *              a batch starts when the global clock reaches first + k x
 *              window; a process that gets there after its window began,
 *              or is held up in its wait, marks the repetition invalid
 * The timing loop (timing_loop.c) calls begin before a batch of
 * repetitions, start and end around each, and times everything with now.
 *   start_skew.c  how far apart the processes really started: measured
 *              after each round of the run, independently of the model a
 *              start waited on, for either method */
#ifndef NBH_SYNC_H
#define NBH_SYNC_H

#include <mpi.h>

#include "catalog.h"
#include "sync/clock_model.h"

/* Why a process's clock start was late: it got there after its window
 * began (still busy with the repetition before), or its wait ended too
 * long after it began (held up while it waited). */
enum { SYNC_BEHIND = 1, SYNC_HELD = 2 };

struct run_context;
struct setup;
struct arrival_plan;

/* One experiment's synchronisation: the method and its state. */
struct sync_run {
    const struct sync_method *method;
    MPI_Comm comm;          /* the repetitions' communicator */
    MPI_Comm base;          /* every process: the clock is rank 0's of base */
    /* clock */
    struct clock_model model;
    double first;           /* global time at which repetition 0 of the batch starts */
    long audit_id;          /* the experiment's id, for test builds' audits (local_clock.h) */
    double window;          /* seconds between two starts */
    int yield;              /* more processes than cores on this host: wait yielding */
    long batch;             /* most repetitions per batch; 0: no limit */
    int each;               /* clock: estimate before every experiment round and measure the skew after it,
                             * never resynchronise between (the kernel before issue 37: --sync-each-experiment) */
    /* what start found, for the repetition it started */
    double lateness;        /* actual start minus the common start (clock); 0 (barrier) */
    int late;               /* clock: SYNC_BEHIND | SYNC_HELD; 0: on time */
    /* recorded per experiment (PREFIX.preparation.csv) */
    double prepare_seconds; /* clock: estimating (and resynchronising) the clock and timing the window,
                             * this process */
    double offset;          /* clock: this process's estimated offset to rank 0 at the first window */
    /* the start skew measured independently of the start's own model
     * (start_skew.h): always with the clock, with the barrier when asked */
    int measure;
    double *local_starts;   /* every start of the experiment round on this process's local clock */
    long nstarts, starts_capacity;
};

struct sync_method {
    /* Once per experiment, after the operation is prepared; collective on
     * ctx->base. The clock estimates the clock model and times the
     * operation (with the arrival pattern) for the window. */
    void (*prepare)(struct sync_run *s, struct run_context *ctx, const struct setup *op,
                    const struct arrival_plan *arrival);
    /* Before a batch of at most n repetitions; collective on s->base. The
     * clock resynchronises here when its model's bound says so. */
    void (*begin)(struct sync_run *s, long n);
    /* Repetition k of the batch begins: returns its common start on the
     * clock of now, and sets lateness and late. */
    double (*start)(struct sync_run *s, long k);
    /* After the repetition is complete on this process. */
    void (*end)(struct sync_run *s);
    /* The clock the repetitions are timed with, seconds. */
    double (*now)(const struct sync_run *s);
    /* After a batch in which more than a quarter of the repetitions had a
     * process that got to its start after the window began (SYNC_BEHIND):
     * the clock's window doubles. */
    void (*widen)(struct sync_run *s);
    /* After the experiment's repetitions; collective on s->base. */
    void (*finish)(struct sync_run *s, struct run_context *ctx);
};

/* The method of registry/syncs.csv row `sync`: sync_<name> (a link error
 * if a row has no file). */
const struct sync_method *sync_method_for(enum sync sync);
/* Sets up s for an experiment on comm (ctx->comm) with every process in
 * base; the clock measures its start skew (measure = 1), the barrier when
 * the caller sets measure (start_skew.h: after the run's round). */
void sync_run_init(struct sync_run *s, enum sync sync, MPI_Comm comm, MPI_Comm base);
void sync_run_free(struct sync_run *s);

#endif
