/* The persistent neighborhood collectives (MPI-4): prepare makes the
 * request with MPI_Neighbor_*_init once per experiment, timed on its own
 * (ctx->init_seconds); each repetition is MPI_Start; busy work; MPI_Wait;
 * release frees the request. Built only where the library has them
 * (persistent_api.h); elsewhere the setups exist but are unavailable, and
 * the input check refuses them with the reason. */
#include <stdio.h>

#include "dissemination_barrier.h"
#include "persistent_api.h"
#include "setup.h"

const char *setup_unavailable(enum operation op)
{
    static char reason[512];
    if (!operation_table[op].persistent || NBH_HAVE_PERSISTENT)
        return NULL;
    snprintf(reason, sizeof(reason),
             "the MPI library of this kernel build has no persistent neighborhood collectives (MPI %d.%d; "
             "persistent names: %s)", MPI_VERSION, MPI_SUBVERSION, NBH_PERSISTENT_NAMES);
    return reason;
}

const char *persistent_collectives_names(void)
{
    return NBH_PERSISTENT_NAMES;
}

#if NBH_HAVE_PERSISTENT

/* The _init call of every process, between two barriers, timed alone. */
static void init_timed(struct run_context *c, void (*init)(struct run_context *))
{
    dissemination_barrier(c->comm);
    double t0 = MPI_Wtime();
    init(c);
    c->init_seconds = MPI_Wtime() - t0;
    dissemination_barrier(c->comm);
}

static void allgather_init(struct run_context *c)
{
    NBH_PERSISTENT(Neighbor_allgather_init)(c->sendbuf, c->count, c->type, c->recvbuf, c->count, c->recvtype,
                                            c->comm, MPI_INFO_NULL, &c->request);
}

static void allgatherv_init(struct run_context *c)
{
    NBH_PERSISTENT(Neighbor_allgatherv_init)(c->sendbuf, c->sendcounts[0], c->type, c->recvbuf,
                                             c->recvcounts, c->rdispls, c->recvtype, c->comm, MPI_INFO_NULL,
                                             &c->request);
}

static void alltoall_init(struct run_context *c)
{
    NBH_PERSISTENT(Neighbor_alltoall_init)(c->sendbuf, c->count, c->type, c->recvbuf, c->count, c->recvtype,
                                           c->comm, MPI_INFO_NULL, &c->request);
}

static void alltoallv_init(struct run_context *c)
{
    NBH_PERSISTENT(Neighbor_alltoallv_init)(c->sendbuf, c->sendcounts, c->sdispls, c->type, c->recvbuf,
                                            c->recvcounts, c->rdispls, c->recvtype, c->comm, MPI_INFO_NULL,
                                            &c->request);
}

static void alltoallw_init(struct run_context *c)
{
    NBH_PERSISTENT(Neighbor_alltoallw_init)(c->sendbuf, c->sendcounts, c->sdispls_bytes, c->sendtypes,
                                            c->recvbuf, c->recvcounts, c->rdispls_bytes, c->recvtypes,
                                            c->comm, MPI_INFO_NULL, &c->request);
}

static void start(struct run_context *c)
{
    MPI_Start(&c->request);
}

static void release(struct run_context *c)
{
    MPI_Request_free(&c->request);
    buffers_release(c);
}

#define PERSISTENT(name, pattern)                      \
    static void prepare_##name(struct run_context *c)  \
    {                                                  \
        prepare_neighbor_##pattern(c);                 \
        init_timed(c, name##_init);                    \
    }                                                  \
    const struct setup setup_neighbor_##name##_init = {prepare_##name, start, wait_request, NULL, release};

#else

/* Never run: the input check refuses these operations. */
static void unavailable(struct run_context *c)
{
    (void)c;
}

#define PERSISTENT(name, pattern) \
    const struct setup setup_neighbor_##name##_init = {unavailable, unavailable, NULL, NULL, unavailable};

#endif

PERSISTENT(allgather, allgather)
PERSISTENT(allgatherv, allgather)
PERSISTENT(alltoall, alltoall)
PERSISTENT(alltoallv, alltoall)
PERSISTENT(alltoallw, alltoall)
