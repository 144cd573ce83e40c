/* PREFIX.prov.json: what a result needs to be trusted and reproduced. Written
 * by rank 0 when the run starts (status "running"; never over an existing
 * file) and again when it ends ("complete", or "stopped" with the error that
 * stopped it); a run that died keeps the first. Each version is written
 * whole (whole_output.h). */
#ifndef NBH_PROVENANCE_H
#define NBH_PROVENANCE_H

#include <mpi.h>
#include <stddef.h>

struct provenance {
    const char *path;          /* the provenance file */
    const char *input;
    const char *prefix;
    char start_time[32];
    char end_time[32];
    char library_version[MPI_MAX_LIBRARY_VERSION_STRING];
    int mpi_version, mpi_subversion;
    int thread_level;          /* MPI_Query_thread: what the library provides (async progress may raise it) */
    int nprocs;
    char *hosts_json;          /* rank 0 only */
    int shared_memory_nodes;   /* groups of MPI_Comm_split_type(MPI_COMM_TYPE_SHARED): the nodes node_aware_alltoallv sees */
    double countdown_rate;     /* steps per microsecond */
    int rate_measured;         /* 0: given with --countdown-rate */
    int validate;
    double max_memory;
    int experiments;
    int experiments_done;
    long findings;
    long peak_rss_kib;         /* largest peak resident set of any process (getrusage); 0: not yet */
    int peak_rss_rank;         /* the process that had it */
    int cvars;                 /* control variables recorded */
    const char *error;         /* what stopped the run ("stopped"), else NULL */
    int written;               /* a version exists: the next replaces it */
    struct {
        const char *name;      /* NAME or NAME=VALUE, as given to --expect-cvar/--expect-env */
        char in_force[256];
        const char *not_verifiable;  /* why MPI_T cannot confirm it (set, not verifiable), or NULL */
    } parameters[256];
    int nparameters;
};

/* Collective on comm: fills what every run records (library, hosts, time). */
void provenance_collect(struct provenance *p, MPI_Comm comm);
/* Rank 0: writes the file whole, the first time never over an existing
 * one. 0, or -1 with the message in error and errno set. */
int provenance_write(struct provenance *p, const char *status, char *error, size_t size);
void provenance_now(char *out, size_t size);
/* Collective on comm, at the end: the largest peak resident set size of
 * any process and its rank, into p on rank 0 (kernel memory per process:
 * what a graph's O(degree) claim is checked against). */
void provenance_peak_memory(struct provenance *p, MPI_Comm comm);

#endif
