/* One experiment: a row of the kernel's input file, parsed and checked. */
#ifndef NBH_EXPERIMENT_H
#define NBH_EXPERIMENT_H

#include <stdint.h>

#include "catalog.h"
#include "datatypes/layout_catalog.h"
#include "seeds.h"

#define NBH_MAX_NDIM 8
#define NBH_NOT_APPLICABLE (-1)

struct experiment {
    long id;
    enum operation op;
    enum topology topology;
    enum constructor constructor;
    int ndim;       /* grid topologies only, else NBH_NOT_APPLICABLE */
    int nfin;
    int radius;     /* moore, vneum only */
    int order;      /* enum order, or NBH_NOT_APPLICABLE (cart) */
    int reorder;
    enum datatype datatype;
    long msize;     /* bytes per neighbor block; 0 where no data moves */
    long nrep;
    double work_us;
    double work_factor;  /* work as a multiple of the work_reference's time; 0: work_us */
    uint64_t seed;  /* run seed; each process derives its own */
    char *graph;    /* graph only: the graph file, relative paths resolved
                     * against the input file's folder; else NULL */
    int weights;    /* graph only: 1 passes the edge counts as weights */
    struct layout_params layout;  /* operations that move data: the data layout (docs/datatypes.md) */
    enum arrival arrival;  /* arrival pattern (arrival.h); ARRIVAL_none where it does not apply */
    double arrival_us;     /* its maximum delay d */
    int late_rank;         /* one_late: the late process (rank of the topology communicator) */
    enum sync sync;        /* how repetitions start (sync/sync.h) */
    long blocks;    /* interleaved rounds the nrep repetitions are spread over (rounds.h) */
    long first_round;  /* the first of them this input measures (a resumed attempt's: later) */
    long warmup;    /* repetitions before each round's timed ones, left out of the statistics */
    int twin;       /* 1: an A/A twin of experiment twin_of */
    long twin_of;   /* a twin's original (the analyzer pairs them); -1 for an original */
    int line;       /* line in the input file, for messages */
};

/* The seed of process `rank` (PREFIX.seeds.csv): from the run seed, the
 * experiment's own id and the rank. A twin draws its own, under its own id,
 * as an independent launch would: what is drawn (RAND orders, uniform
 * delays, the buffers' places) must not cancel between twin and original. */
static inline uint64_t experiment_seed(const struct experiment *e, int rank)
{
    return process_seed(e->seed, e->id, rank);
}

/* What process `rank` draws round `round` of the experiment from (seeds.h). */
static inline uint64_t experiment_round_seed(const struct experiment *e, int rank, int round)
{
    return round_seed(experiment_seed(e, rank), round);
}

#endif
