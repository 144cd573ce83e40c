/* Who packs a layout (registry/packings.csv): the library (datatype: the
 * operation gets the descriptions), MPI_Pack/MPI_Unpack (mpi_pack), plain
 * copy loops (manual) or cache-blocked ones (manual_tiled). For the last
 * three the operation moves the contiguous packed copies, and packing,
 * operation and unpacking are timed as one: a setup is wrapped so that its
 * start packs every block sent and its completion unpacks every slot
 * received (a blocking operation: all within start). */
#ifndef NBH_PACKING_H
#define NBH_PACKING_H

#include "setups/setup.h"

/* The setup to run for ctx's experiment: s itself where the library packs
 * (or the setup packs itself: pingpong), else s wrapped. */
const struct setup *packing_setup(struct run_context *ctx, const struct setup *s);
/* Packs every send block into the packed copies, and unpacks every slot
 * that has a sender into the layout's buffer (no-ops for datatype). */
void packing_pack(struct run_context *ctx);
void packing_unpack(struct run_context *ctx);

/* The copy loops, also for make bench: the runs of box between a layout's
 * buffer and contiguous packed bytes; gather 1 packs, 0 unpacks; tiled
 * walks two innermost levels of single elements in tiles of
 * NBH_PACK_TILE_SHORT x NBH_PACK_TILE_LONG (packing.c). */
#define NBH_PACK_TILE_SHORT 8
#define NBH_PACK_TILE_LONG 64
struct run_box;
void copy_box(const struct run_box *box, char *layout, char *packed, int gather, int tiled);

#endif
