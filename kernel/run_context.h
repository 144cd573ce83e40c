/* Everything one experiment's repetitions work on. The experiment runner
 * fills the communicator and lists; a setup's prepare fills the buffers and
 * says what every receive slot must hold. */
#ifndef NBH_RUN_CONTEXT_H
#define NBH_RUN_CONTEXT_H

#include <stddef.h>
#include <stdint.h>

#include "seeds.h"
#include "topologies/topology.h"

struct run_context {
    const struct experiment *e;
    MPI_Comm base;               /* all processes */
    MPI_Comm comm;               /* the topology communicator; base for create */
    int rank;                    /* in comm */
    int nprocs;
    struct neighborhood hood;    /* as computed, in ranks of base */
    struct neighbor_lists lists; /* as the library reports them for comm */
    int *send_tags;              /* pairing names of the edges (pairing.h) */
    int *recv_tags;
    /* graph only (NULL elsewhere), at the positions of `lists`: entries per
     * edge, each source's allgather block, and this process's. */
    int *edge_out, *edge_in;
    int *block_in;
    int block_out;
    uint64_t work;               /* countdown steps of busy work */
    double init_seconds;         /* persistent setups: this process's _init call; else -1 */
    void *setup_state;           /* what a setup keeps between prepare and release (node_aware.c's plan) */

    /* Buffers: nsend blocks out, nrecv slots in, each msize bytes, or
     * entries x msize where the v/w variants carry a graph's counts. */
    MPI_Datatype type;           /* what a block is sent as (recvtype: received as) */
    MPI_Datatype recvtype;
    int count;                   /* elements per msize bytes */
    size_t block;                /* msize */
    int nsend, nrecv;
    size_t *send_offsets;        /* nsend + 1: block j is [send_offsets[j], send_offsets[j+1]) */
    size_t *recv_offsets;        /* nrecv + 1 */
    char *sendbuf, *recvbuf;
    struct rng places;           /* where in its page each data buffer lies (data_buffers.h), this round's */
    int *sendcounts, *recvcounts, *sdispls, *rdispls;  /* v: elements; global w: bytes */
    MPI_Aint *sdispls_bytes, *rdispls_bytes;           /* neighbor w */
    MPI_Datatype *sendtypes, *recvtypes;
    MPI_Request request;         /* nonblocking collectives */
    MPI_Request *requests;       /* p2p exchanges */
    MPI_Comm created;            /* create: the communicator of this repetition */

    /* What the data check expects: the name each sent block carries, and
     * which sender and name each receive slot must get (MPI_PROC_NULL: none).
     * block_sent[j]: 0 where block j goes to MPI_PROC_NULL alone (a finite
     * Cartesian border), which the library skips and so does packing. */
    int *block_names;
    int *block_sent;
    int *slot_senders;
    int *slot_names;

    /* A layout (datatypes/layout_buffers.h): the layout's own buffers and
     * descriptions; NULL for contiguous data described by the basic type
     * and packed by the library. inner_setup: the setup a packing wraps. */
    struct layout_state *layout;
    const struct setup *inner_setup;
};

#endif
