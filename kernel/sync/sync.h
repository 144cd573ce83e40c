/* How a repetition starts (registry/syncs.csv, SPEC 8.2): one file per
 * method behind this interface, as ReproMPI's sync/ modules.
 *   barrier.c  the dissemination barrier; each process times from its own
 *              exit (the study's Algorithm 1)
 *   clock.c    windows of a global clock: every process estimates its
 *              clock's offset and drift to rank 0 (clock_model.c), and
 *              repetition k of a batch starts when the global clock reaches
 *              first + k x window; a process that gets there after its
 *              window began marks the repetition invalid
 * The timing loop (timing_loop.c) calls begin before a batch of
 * repetitions, start and end around each, and times everything with now.
 *   start_skew.c  how far apart the processes really started: measured
 *              after the repetitions, independently of the model a start
 *              waited on, for either method */
#ifndef NBH_SYNC_H
#define NBH_SYNC_H

#include <mpi.h>

#include "catalog.h"
#include "sync/clock_model.h"

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
    double window;          /* seconds between two starts */
    int yield;              /* more processes than cores on this host: wait yielding */
    long batch;             /* most repetitions per batch; 0: no limit */
    /* what start found, for the repetition it started */
    double lateness;        /* actual start minus the common start (clock); 0 (barrier) */
    int late;               /* 1: this process got there after its window began (clock) */
    /* recorded per experiment (PREFIX.preparation.csv) */
    double prepare_seconds; /* clock: estimating the clock and timing the window, this process */
    double offset;          /* clock: this process's estimated offset to rank 0 at the first window */
    /* the start skew measured independently of the start's own model
     * (start_skew.h): always with the clock, with the barrier when asked */
    int measure;
    double *local_starts;   /* every start of the experiment on this process's local clock */
    long nstarts, starts_capacity;
    double *spread;         /* rank 0, after finish: per start the latest minus the earliest process */
    double skew_bound;      /* rank 0: the measurement's resolution */
    double measure_seconds; /* the measurement's cost, this process */
};

struct sync_method {
    /* Once per experiment, after the operation is prepared; collective on
     * ctx->base. The clock estimates the clock model and times the
     * operation (with the arrival pattern) for the window. */
    void (*prepare)(struct sync_run *s, struct run_context *ctx, const struct setup *op,
                    const struct arrival_plan *arrival);
    /* Before a batch of repetitions; collective on s->base. */
    void (*begin)(struct sync_run *s);
    /* Repetition k of the batch begins: returns its common start on the
     * clock of now, and sets lateness and late. */
    double (*start)(struct sync_run *s, long k);
    /* After the repetition is complete on this process. */
    void (*end)(struct sync_run *s);
    /* The clock the repetitions are timed with, seconds. */
    double (*now)(const struct sync_run *s);
    /* After a batch in which more than a quarter of the repetitions
     * started late: the clock's window doubles. */
    void (*widen)(struct sync_run *s);
    /* After the experiment's repetitions; collective on s->base. */
    void (*finish)(struct sync_run *s, struct run_context *ctx);
};

/* The method of registry/syncs.csv row `sync`: sync_<name> (a link error
 * if a row has no file). */
const struct sync_method *sync_method_for(enum sync sync);
/* Sets up s for an experiment on comm (ctx->comm) with every process in
 * base; the clock measures its start skew (measure = 1), the barrier when
 * the caller sets measure. */
void sync_run_init(struct sync_run *s, enum sync sync, MPI_Comm comm, MPI_Comm base);
void sync_run_free(struct sync_run *s);

#endif
