/* Who packs a layout (registry/packings.csv): the library (datatype: the
 * operation gets the descriptions), MPI_Pack/MPI_Unpack (mpi_pack), plain
 * copy loops (manual) or cache-blocked ones (manual_tiled). For the last
 * three the operation moves the contiguous packed copies, and packing,
 * operation and unpacking are timed as one (setups/packed.c wraps the
 * operation's setup). */
#ifndef NBH_PACKING_H
#define NBH_PACKING_H

#include "run_context.h"

/* Packs every send block that goes to a process (not to MPI_PROC_NULL
 * alone: block_sent) into the packed copies, and unpacks every slot that
 * has a sender into the layout's buffer (no-ops for datatype). */
void packing_pack(struct run_context *ctx);
void packing_unpack(struct run_context *ctx);

/* The copy loops, also for make bench: the runs of box between a layout's
 * buffer and contiguous packed bytes; gather 1 packs, 0 unpacks; tiled
 * walks two innermost levels of single elements cache-blocked: where the
 * layout runs along the outer level (a transposed block: the transpose's
 * receive) through a padded scratch tile sized to the L1 cache, in groups
 * of tiles sized to the L2 cache (packing_transpose_tile), or for doubles
 * in AVX registers (packing_transpose_registers); otherwise in
 * micro tiles of a cache line each way, in blocks of NBH_PACK_BLOCK x
 * NBH_PACK_BLOCK elements, prefetching the layout's lines
 * NBH_PACK_PREFETCH steps ahead (packing.c). */
#define NBH_PACK_BLOCK 512
#define NBH_PACK_PREFETCH 64
struct run_box;
void copy_box(const struct run_box *box, char *layout, char *packed, int gather, int tiled);
/* The transposing copy's tile for elements of `element` bytes, from the
 * caches this machine reports: its side and row padding, and the side of
 * the groups of tiles done together, in elements. */
void packing_transpose_tile(size_t element, long *side, long *pad, long *group);
/* Doubles (8-byte elements) of a transposed block go through registers
 * instead where the CPU has AVX (transpose_registers.h): in tiles of
 * `side` elements in groups of `group`, with streaming stores where the
 * destination block has stream_from bytes or more (from the L2 and L3
 * caches this machine reports). */
void packing_transpose_registers(int *available, long *side, long *group, size_t *stream_from);
/* Which way the transposed blocks of 8-byte elements take: the one chosen
 * from the CPU and the block's size (TRANSPOSE_AUTO, the default), or one
 * forced, for the tests: the scratch tile, registers with plain stores, or
 * with streaming ones. Returns 0 (and changes nothing) where the CPU lacks
 * AVX for the last two. */
enum transpose_way { TRANSPOSE_AUTO, TRANSPOSE_SCRATCH, TRANSPOSE_REGISTERS, TRANSPOSE_STREAMING };
int packing_transpose_way(enum transpose_way way);

#endif
