/* A layout described as an MPI datatype by one type constructor
 * (registry/type_constructors.csv; docs/datatypes.md). Every description of
 * a layout has the same type map: the same size, the same extent per
 * neighbor, the same packed bytes (description_check.c checks it). */
#ifndef NBH_DESCRIPTIONS_H
#define NBH_DESCRIPTIONS_H

#include <mpi.h>

#include "datatypes/geometry.h"

/* Where one block (send) or slot (receive) lies: count elements of type
 * starting displacement bytes into the buffer. */
struct description {
    MPI_Datatype type;
    int count;
    MPI_Aint displacement;
    int derived;  /* type was made here (not committed yet); description_free frees it */
};

enum side { SIDE_SEND, SIDE_RECV };

/* Send block (or receive slot) index of geometry g described by constructor
 * c over the basic type (ignored by tiled_hetero, whose unit names its
 * own). The type is made but not committed. */
void describe(const struct layout_geometry *g, MPI_Datatype basic, enum type_constructor c, enum side side,
              int index, struct description *d);
void description_free(struct description *d);

#endif
