#ifndef NBH_EXPERIMENT_RUN_H
#define NBH_EXPERIMENT_RUN_H

#include <mpi.h>

#include "experiment.h"
#include "output.h"
#include "rounds.h"

struct run_settings {
    MPI_Comm base;
    double countdown_rate;  /* steps per microsecond */
    int validate;
    int dump_lists;         /* write PREFIX.lists.csv (tests) */
    int dump_delays;        /* write PREFIX.delays.csv */
    int ranks;              /* write PREFIX.ranks.csv rows (the input has an arrival pattern) */
    int loop_report;        /* print the kernel's own cost per repetition (loop_report.h) */
    int measure_skew;       /* measure barrier starts' skew too (sync/start_skew.h; clock: always) */
    int sync_each_experiment; /* clock: estimate and measure around every experiment round (sync/clock.c) */
};

/* Runs one round of an experiment on every process of base (rounds.h):
 * builds the neighborhood, the topology communicator and the setup afresh
 * (buffers, datatypes, persistent requests), with what the round draws
 * (a RAND order, uniform delays, the buffers' places) drawn from each
 * process's seed of the round (experiment_round_seed), times the experiment's warm-up
 * and then the slot's repetitions, frees it all again, reduces the times
 * (MAX over processes) to rank 0, which writes them. Only the busy work a
 * work_factor gives is kept across rounds (work_factor.c). Sets the number
 * of data-check findings; returns 0, or on every process the errno of an
 * output that could not be written (rank 0 has the message in out->error;
 * no table holds any of the round). */
int experiment_run(const struct experiment *e, const struct round_slot *slot, const struct run_settings *settings,
                   struct output *out, long *findings_total);

#endif
