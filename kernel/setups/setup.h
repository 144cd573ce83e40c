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
/* The setup to run for ctx's experiment: s itself where the library packs
 * (or the setup packs itself: pingpong), else s wrapped by its packing
 * (packed.c). */
const struct setup *packing_setup(struct run_context *ctx, const struct setup *s);
/* Why this build cannot run op (persistent.c: "the MPI library of this
 * kernel build has no persistent ..."), or NULL if it can. */
const char *setup_unavailable(enum operation op);
/* Which persistent neighborhood collectives this build calls: "MPI_...",
 * "MPIX_..." or why none. */
const char *persistent_collectives_names(void);

/* Shared by the setups (buffers.c). Allocates nsend blocks and nrecv
 * slots, contiguous, and the expectation arrays. Block j holds send_entries[j] x msize bytes, slot k
 * recv_entries[k] x msize (NULL: 1 each, equal counts), and the counts
 * and displacements of the v and w variants say so. Every buffer is
 * written before it is used (data_buffers.h). */
void buffers_prepare(struct run_context *ctx, int nsend, int nrecv, const int *send_entries,
                     const int *recv_entries);
void buffers_release(struct run_context *ctx);
void prepare_neighbor_allgather(struct run_context *ctx);
void prepare_neighbor_alltoall(struct run_context *ctx);
void wait_request(struct run_context *ctx);

#endif
