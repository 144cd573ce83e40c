/* A graph's edge counts where the library reports the edges: the library
 * may order the lists its own way (Dist_graph_create) and renumber the
 * processes (reorder 1), so the counts follow the edges, not positions. */
#ifndef NBH_EDGE_COUNTS_H
#define NBH_EDGE_COUNTS_H

#include "run_context.h"

/* Fills ctx->edge_out, edge_in, block_in and block_out for the lists of
 * topo (ctx->lists) from ctx->hood (ranks of ctx->base); nothing where the
 * neighborhood has no counts. An edge matches the computed edge to the
 * same process with the same occurrence number (pairing.h); one the
 * library invented (a list finding) gets 1 entry. */
void edge_counts_match(struct run_context *ctx, MPI_Comm topo);
void edge_counts_free(struct run_context *ctx);

#endif
