#ifndef NBH_EXPERIMENT_RUN_H
#define NBH_EXPERIMENT_RUN_H

#include <mpi.h>

#include "experiment.h"
#include "output.h"

struct run_settings {
    MPI_Comm base;
    double countdown_rate;  /* steps per microsecond */
    int validate;
    int dump_lists;         /* write PREFIX.lists.csv (tests) */
    int dump_delays;        /* write PREFIX.delays.csv */
    int ranks;              /* write PREFIX.ranks.csv rows (the input has an arrival pattern) */
    int loop_report;        /* print the kernel's own cost per repetition (loop_report.h) */
};

/* Runs one experiment on every process of base: builds the neighborhood
 * and the topology communicator, times nrep repetitions, reduces the times
 * (MAX over processes) to rank 0, which writes them. Sets the number of
 * data-check findings; returns 0, or on every process the errno of an
 * output that could not be written (rank 0 has the message in out->error;
 * no table holds any of the experiment). */
int experiment_run(const struct experiment *e, const struct run_settings *settings, struct output *out,
                   long *findings_total);

#endif
