/* The kernel's output files, all written by rank 0 under one prefix:
 *   PREFIX.results.csv   id,rep,seconds: nrep rows per experiment, each
 *                        experiment's rows written at once and flushed
 *   PREFIX.prov.json     provenance (provenance.h)
 *   PREFIX.cvars.csv     the library's control variables in force (MPI_T)
 *   PREFIX.findings.csv  data-check findings (--validate)
 *   PREFIX.seeds.csv     id,rank,seed of every process in RAND experiments
 *   PREFIX.lists.csv     neighbor lists as computed and as reported (--dump-lists)
 *   PREFIX.reorder.csv   id,ranks_changed of every reorder = 1 experiment
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
    FILE *reorder;    /* opened at the first reorder = 1 experiment */
};

/* Creates the results (and findings) files. 0, or -1 with a message. */
int output_open(struct output *o, const char *prefix, int validate, int dump_lists, char *error,
                size_t size);
/* Appends one experiment's rows with a single write. */
int output_results(struct output *o, const struct experiment *e, const double *seconds);
/* Records the seed of every process of a RAND experiment. */
void output_seeds(struct output *o, const struct experiment *e, int nprocs);
/* Records how many processes a reorder = 1 experiment's topology renumbered. */
void output_reorder(struct output *o, const struct experiment *e, int ranks_changed);
void output_close(struct output *o);
/* PREFIX + suffix, in out. */
void output_path(const char *prefix, const char *suffix, char *out, size_t size);

#endif
