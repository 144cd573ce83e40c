/* At setup, before anything is timed: every description of a layout must
 * have the type map of the layout's normal description and of the
 * geometry (geometry.c): the same size (msize), the same extent per
 * neighbor, the same span of bytes, and the same packed bytes when
 * MPI_Pack packs a patterned buffer. The verdict goes to
 * preparation.csv (type_check): "ok", or what differs first. */
#ifndef NBH_DESCRIPTION_CHECK_H
#define NBH_DESCRIPTION_CHECK_H

#include "datatypes/layout_buffers.h"

void description_check(struct run_context *ctx, struct layout_state *s);

#endif
