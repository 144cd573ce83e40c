/* Topology creation: the constructor call alone is timed (the neighbor
 * lists were made before); the communicator is freed untimed after each
 * repetition. */
#include "constructors.h"
#include "setup.h"

static void prepare(struct run_context *ctx)
{
    ctx->created = MPI_COMM_NULL;
}

static void create(struct run_context *ctx)
{
    topology_comm_create(ctx->e, ctx->base, &ctx->hood, &ctx->created);
}

static void free_created(struct run_context *ctx)
{
    MPI_Comm_free(&ctx->created);
}

static void release(struct run_context *ctx)
{
    (void)ctx;
}

const struct setup setup_create = {prepare, create, NULL, free_created, release};
