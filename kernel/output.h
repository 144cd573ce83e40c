/* The kernel's output files, all written by rank 0 under one prefix:
 *   PREFIX.results.csv   id,rep,seconds,work_seconds: nrep rows per
 *                        experiment, each experiment's rows written at once
 *   PREFIX.preparation.csv  per experiment with a persistent operation or a
 *                        work_factor: the _init time, the work_reference's
 *                        time and the work it gave
 *   PREFIX.prov.json     provenance (provenance.h)
 *   PREFIX.cvars.csv     the library's control variables in force (MPI_T)
 *   PREFIX.findings.csv  data-check findings (--validate)
 *   PREFIX.seeds.csv     id,rank,seed of every process in RAND experiments
 *   PREFIX.lists.csv     neighbor lists as computed and as reported (--dump-lists)
 * None is ever overwritten: an existing file is an error. */
#ifndef NBH_OUTPUT_H
#define NBH_OUTPUT_H

#include <stdio.h>

#include "experiment.h"

struct output {
    char prefix[4096];
    int results;      /* file descriptor */
    FILE *findings;   /* NULL unless validating */
    FILE *seeds;      /* opened at the first RAND experiment */
    FILE *lists;      /* NULL unless dumping lists */
    FILE *preparation; /* opened at the first experiment that has one */
};

/* What an experiment measured before its repetitions; -1: not measured. */
struct preparation {
    double init_seconds;       /* persistent: the _init call, slowest process */
    double reference_seconds;  /* work_factor: the work_reference without work */
    long reference_id;         /* work_factor: the experiment in which it was timed */
    double work_us;            /* work_factor: the busy work it gave */
};

/* Creates the results (and findings) files. 0, or -1 with a message. */
int output_open(struct output *o, const char *prefix, int validate, int dump_lists, char *error,
                size_t size);
/* Appends one experiment's rows with a single write: seconds and
 * work_seconds, each the slowest process's, per repetition. */
int output_results(struct output *o, const struct experiment *e, const double *seconds,
                   const double *work_seconds);
/* Records what an experiment measured before its repetitions. */
void output_preparation(struct output *o, const struct experiment *e, const struct preparation *p);
/* Records the seed of every process of a RAND experiment. */
void output_seeds(struct output *o, const struct experiment *e, int nprocs);
void output_close(struct output *o);
/* PREFIX + suffix, in out. */
void output_path(const char *prefix, const char *suffix, char *out, size_t size);

#endif
