/* A process's buffers for an experiment with a layout (docs/datatypes.md):
 * the layout's own send and receive buffers with every block's description,
 * and, where the packing is not the library's, the contiguous packed copies
 * the operation moves. buffers_prepare (setups/buffers.c) calls this after
 * it has made the contiguous buffers of msize-byte blocks. */
#ifndef NBH_LAYOUT_BUFFERS_H
#define NBH_LAYOUT_BUFFERS_H

#include "datatypes/descriptions.h"
#include "output.h"
#include "run_context.h"

struct layout_state {
    struct layout_geometry g;
    MPI_Datatype basic;
    char *send, *recv;               /* the layout's buffers */
    size_t send_bytes, recv_bytes;
    struct description *sends;       /* one per send block */
    struct description *recvs;       /* one per receive slot */
    int packed;                      /* the operation moves packed copies (packing is not datatype) */
    size_t packed_block;             /* bytes of a packed block */
    double construct_seconds;        /* the type constructors of this process's descriptions (with
                                      * their argument arrays); -1: none made */
    double commit_seconds;           /* MPI_Type_commit of this process's descriptions; -1: none */
    char check[200];                 /* the descriptions' agreement (description_check.c): "ok" or what differs */
};

/* The layout's buffers and descriptions, and the operation's view of them. */
void layout_buffers_prepare(struct run_context *ctx);
void layout_buffers_release(struct run_context *ctx);

/* The data check on the layout's buffers: block j's payload placed at the
 * layout's elements; slot k's elements gathered in type-map order; every
 * receive buffer poisoned; and whether anything outside the received
 * elements (the gaps, and the slots from MPI_PROC_NULL) was written: the
 * first such byte's offset, or -1. The gap check overwrites the slots. */
void layout_put_block(struct run_context *ctx, int j, const char *data);
/* The halo's faces share their edges, so its blocks cannot each carry a
 * payload of their own: every byte of a process's send array is a pattern
 * of (rank, offset), and a slot expects the pattern of its sender's face
 * named by the slot (layout_expected). */
int layout_faces_overlap(const struct run_context *ctx);
void layout_fill_pattern(struct run_context *ctx);
void layout_expected(const struct run_context *ctx, int sender, int name, char *data);
void layout_get_slot(const struct run_context *ctx, int k, char *data);
void layout_poison(struct run_context *ctx, int poison);
long layout_gap_written(struct run_context *ctx, int poison);

/* preparation.csv: the descriptions' size and extent per neighbor, the
 * slowest process's constructor and commit times and the check's verdict (called on every
 * process of ctx->base after the setup's prepare). */
void layout_preparation(struct run_context *ctx, struct preparation *p);

#endif
