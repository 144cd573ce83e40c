/* A setup wrapped by its packing (docs/datatypes.md): where mpi_pack,
 * manual or manual_tiled packs a layout, the operation moves the packed
 * copies, and packing, operation and unpacking are timed as one: the
 * wrapper's start packs every block sent (datatypes/packing.c) and its
 * completion unpacks every slot received (a blocking operation: all
 * within start). ctx->inner_setup is the operation's own setup. */
#include "datatypes/packing.h"
#include "setup.h"

static void wrapped_prepare(struct run_context *ctx)
{
    ctx->inner_setup->prepare(ctx);
}

static void start_blocking(struct run_context *ctx)
{
    packing_pack(ctx);
    ctx->inner_setup->start(ctx);
    packing_unpack(ctx);
}

static void start_nonblocking(struct run_context *ctx)
{
    packing_pack(ctx);
    ctx->inner_setup->start(ctx);
}

static void complete(struct run_context *ctx)
{
    ctx->inner_setup->complete(ctx);
    packing_unpack(ctx);
}

static void after(struct run_context *ctx)
{
    if (ctx->inner_setup->after)
        ctx->inner_setup->after(ctx);
}

static void release(struct run_context *ctx)
{
    ctx->inner_setup->release(ctx);
}

static const struct setup wrapped_blocking = {wrapped_prepare, start_blocking, NULL, after, release};
static const struct setup wrapped_nonblocking = {wrapped_prepare, start_nonblocking, complete, after, release};

const struct setup *packing_setup(struct run_context *ctx, const struct setup *s)
{
    /* pingpong packs and unpacks where the studies' ping and pong do
     * (setups/pingpong.c). */
    if (!operation_table[ctx->e->op].moves_data || ctx->e->layout.packing == PACKING_datatype ||
        ctx->e->op == OP_pingpong)
        return s;
    ctx->inner_setup = s;
    return s->complete ? &wrapped_nonblocking : &wrapped_blocking;
}
