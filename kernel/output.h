/* The kernel's output files, all written by rank 0 under one prefix:
 *   PREFIX.results.csv   id,rep,round,seconds,work_seconds: nrep rows per
 *                        experiment, written round by round (rounds.h);
 *                        with arrival patterns in the input also
 *                        delay_seconds (the slowest process's delay)
 *   PREFIX.warmup.csv    id,round,rep,seconds,work_seconds: the warm-up
 *                        repetitions before each round's timed ones
 *   PREFIX.preparation.csv  per experiment with a persistent operation, a
 *                        work_factor, a layout or sync = clock: the _init
 *                        time, the work_reference's time and the work it
 *                        gave, the datatype's size, extent and commit time,
 *                        what the clock start cost and achieved
 *   PREFIX.prov.json     provenance (provenance.h)
 *   PREFIX.cvars.csv     the library's control variables in force (MPI_T)
 *   PREFIX.findings.csv  data-check findings (--validate)
 *   PREFIX.seeds.csv     id,rank,seed of every process in experiments that draw
 *                        (RAND orders, uniform delays): each round's seed
 *                        derives from it (seeds.h round_seed)
 *   PREFIX.lists.csv     id,round,...: neighbor lists as computed and as
 *                        reported, every round (--dump-lists)
 *   PREFIX.reorder.csv   id,ranks_changed of every reorder = 1 experiment
 *   PREFIX.ranks.csv     id,rank,seconds,delay_seconds,role: every process's
 *                        median time from the common start to its completion
 *                        (inputs with an arrival pattern)
 *   PREFIX.delays.csv    id,round,rank,attempt,rep,delay_us: the delays the
 *                        arrival pattern gave (--dump-delays)
 * The per-experiment tables (preparation, ranks, findings) have a row per
 * experiment and round. None is ever overwritten: an existing file is an
 * error before anything runs. Every table gets an experiment's rows of one
 * round whole or not at all (whole_output.h): output_end_experiment
 * commits them in every table, or cuts every table back to the experiment
 * before; output_sync puts them on disk after each round. */
#ifndef NBH_OUTPUT_H
#define NBH_OUTPUT_H

#include <stdio.h>

#include "experiment.h"
#include "rounds.h"
#include "whole_output.h"

struct output {
    char prefix[4096];
    struct table results;
    struct table findings;   /* fd -1 unless validating */
    struct table seeds;      /* fd -1 unless the input has experiments that draw */
    struct table lists;      /* fd -1 unless dumping lists */
    struct table reorder;    /* created at the first reorder = 1 experiment */
    struct table preparation; /* created at the first experiment that has one */
    struct table ranks;      /* fd -1 unless the input has an arrival pattern */
    struct table delays;     /* fd -1 unless dumping delays */
    struct table warmup;     /* created at the first warm-up repetition */
    int delay_column;        /* results have delay_seconds (the input has an arrival pattern) */
    char error[4400];        /* the message of the first failure */
    int error_number;        /* its errno (output_error_is_no_space) */
};

/* What an experiment measured before its repetitions; -1: not measured. */
struct preparation {
    double init_seconds;       /* persistent: the _init call, slowest process */
    double reference_seconds;  /* work_factor: the work_reference without work */
    long reference_id;         /* work_factor: the experiment in which it was timed */
    double work_us;            /* work_factor: the busy work it gave */
    double type_size;          /* a layout: bytes of data per neighbor its description gives */
    double type_extent;        /* ... and their extent (MPI_Type_get_extent x count) */
    double commit_seconds;     /* ... MPI_Type_commit of every description, slowest process */
    char type_check[200];      /* ... the descriptions' agreement: "ok" or what differs */
    /* sync = clock (sync/clock.c); sync_seconds -1 for the barrier */
    double sync_seconds;       /* estimating the clock and timing the window, slowest process */
    double window_seconds;     /* the window the last repetitions started in */
    double offset_spread;      /* largest minus smallest estimated offset to rank 0 */
    double start_skew;         /* median over valid repetitions of the latest start after the window's */
    long invalid;              /* repetitions some process started late, left out */
    long reps;                 /* the repetitions of the round written to the results (fewer than
                                * the round's share where a clock start's missed their windows) */
    double construct_seconds;  /* a layout: the type constructors of every description, slowest process */
    /* the start skew measured independently of the start (sync/start_skew.h): clock always,
     * barrier with --measure-skew; -1: not measured */
    double measured_skew;      /* median over valid repetitions of the latest minus the earliest start */
    double skew_bound;         /* the measurement's resolution */
};

/* One process's row of PREFIX.ranks.csv. */
struct rank_row {
    int rank;                  /* in the topology communicator */
    double seconds;            /* median over valid repetitions: common start to completion */
    double delay_seconds;      /* median delay as timed */
    const char *role;          /* one_late: late, neighbor (a source or destination of the late
                                * process), other; else "" */
};

/* Refuses if any output file of PREFIX exists, then creates the tables.
 * 0, or -1 with the message in o->error (nothing is left behind). */
int output_open(struct output *o, const char *prefix, int validate, int dump_lists, int seeds, int ranks,
                int dump_delays);
/* Appends the n rows of an experiment's round to the results table:
 * seconds, work_seconds and (with the delay column) delay_seconds, each the
 * slowest process's, per repetition, numbered from slot->first_rep. */
void output_results(struct output *o, const struct experiment *e, const struct round_slot *slot, long n,
                    const double *seconds, const double *work_seconds, const double *delay_seconds);
/* Appends the n warm-up repetitions of an experiment's round (the slowest
 * process's times), numbered from (round - 1) x warmup. */
void output_warmup(struct output *o, const struct experiment *e, int round, long n, const double *seconds,
                   const double *work_seconds);
/* Appends what an experiment measured before its repetitions of a round. */
void output_preparation(struct output *o, const struct experiment *e, int round, const struct preparation *p);
/* Appends an experiment's rows of PREFIX.ranks.csv for a round, n
 * processes in rank order. */
void output_ranks(struct output *o, const struct experiment *e, int round, int n, const struct rank_row *rows);
/* Appends the seed of every process of a RAND or uniform experiment. */
void output_seeds(struct output *o, const struct experiment *e, int nprocs);
/* Commits the experiment's rows in every table, or (after a failed write)
 * cuts every table back to before it: 0, or the errno with o->error. */
int output_end_experiment(struct output *o);
/* fsync of every table: what is committed survives a node that dies (the
 * kernel calls it after each round). 0, or the errno with o->error. */
int output_sync(struct output *o);
/* Removes every table (a run that stops before measuring leaves nothing). */
void output_discard(struct output *o);
/* Records how many processes a reorder = 1 experiment's topology renumbered. */
void output_reorder(struct output *o, const struct experiment *e, int ranks_changed);
void output_close(struct output *o);
/* PREFIX + suffix, in out. */
void output_path(const char *prefix, const char *suffix, char *out, size_t size);

#endif
