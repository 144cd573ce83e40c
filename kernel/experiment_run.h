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
};

/* Runs one experiment on every process of base: builds the neighborhood
 * and the topology communicator, times nrep repetitions, reduces the times
 * (MAX over processes) to rank 0, which writes them. Returns the number of
 * data-check findings. */
long experiment_run(const struct experiment *e, const struct run_settings *settings,
                    struct output *out);

#endif
