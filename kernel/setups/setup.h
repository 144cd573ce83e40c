/* Measurement setups: one row per operation of registry/operations.csv.
 * The timing loop (timing_loop.c) is written once and calls these. */
#ifndef NBH_SETUP_H
#define NBH_SETUP_H

#include "run_context.h"

struct setup {
    void (*prepare)(struct run_context *ctx);  /* once, untimed: buffers, expectations */
    void (*start)(struct run_context *ctx);    /* timed: the operation, or its nonblocking start */
    void (*complete)(struct run_context *ctx); /* timed, after the busy work: wait; NULL if blocking */
    void (*after)(struct run_context *ctx);    /* untimed, each repetition; may be NULL */
    void (*release)(struct run_context *ctx);  /* once, untimed */
};

const struct setup *setup_for(enum operation op);
/* Why this build cannot run op (persistent.c: "the MPI library of this
 * kernel build has no persistent ..."), or NULL if it can. */
const char *setup_unavailable(enum operation op);
/* Which persistent neighborhood collectives this build calls: "MPI_...",
 * "MPIX_..." or why none. */
const char *persistent_collectives_names(void);

/* Shared by the setups (buffers.c). */
MPI_Datatype datatype_mpi(enum datatype t);
/* Allocates nsend blocks and nrecv slots with equal counts and contiguous
 * displacements for the v and w variants, and the expectation arrays. */
void buffers_prepare(struct run_context *ctx, int nsend, int nrecv);
void buffers_release(struct run_context *ctx);
void prepare_neighbor_allgather(struct run_context *ctx);
void prepare_neighbor_alltoall(struct run_context *ctx);
void wait_request(struct run_context *ctx);

/* Bytes of send and receive buffers a process needs for operation op with
 * the given degrees; what input checking compares with the memory limit. */
double buffer_bytes(enum operation op, long msize, long indegree, long outdegree, int nprocs);

#endif
