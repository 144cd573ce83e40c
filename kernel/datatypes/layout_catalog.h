/* The datatype registry lists (registry/layouts.csv, type_constructors.csv,
 * packings.csv) as C enums and tables, and the layout parameters of one
 * experiment. */
#ifndef NBH_LAYOUT_CATALOG_H
#define NBH_LAYOUT_CATALOG_H

#include "registry.h"

#define NBH_ENUM_LAYOUT(name, ...) LAYOUT_##name,
#define NBH_ENUM_TYPE_CONSTRUCTOR(name) TYPE_CONSTRUCTOR_##name,
#define NBH_ENUM_PACKING(name) PACKING_##name,

enum layout { NBH_LAYOUTS(NBH_ENUM_LAYOUT) N_LAYOUTS };
enum type_constructor { NBH_TYPE_CONSTRUCTORS(NBH_ENUM_TYPE_CONSTRUCTOR) N_TYPE_CONSTRUCTORS };
enum packing { NBH_PACKINGS(NBH_ENUM_PACKING) N_PACKINGS };

struct layout_info {
    const char *name;
    const char *parameters;    /* the geometry parameters it takes (space-separated) */
    const char *normal;        /* its normal type constructor (the studies' description) */
    const char *constructors;  /* the type constructors that can describe it */
    const char *packings;      /* the packings it allows */
    const char *msize;         /* "given", or "derived" from its own parameters */
    const char *ops;           /* the operations it needs; "": every one that moves data */
    const char *topologies;    /* the topologies its neighbor and p2p operations need; "": any */
};

extern const struct layout_info layout_table[N_LAYOUTS];
extern const char *const type_constructor_names[N_TYPE_CONSTRUCTORS];
extern const char *const packing_names[N_PACKINGS];

/* One experiment's layout (registry parameters.csv): the geometry in
 * elements, 0 where the layout takes no such parameter. */
struct layout_params {
    enum layout layout;
    enum type_constructor constructor;
    enum packing packing;
    long unit, unit2, stride, stride2;
    long halo_n, matrix_n;
};

/* The normal type constructor of a layout. */
enum type_constructor layout_normal(enum layout l);
/* Whether the experiment moves contiguous data the way the kernel always
 * did: layout contiguous, described by the basic type, packed by the library. */
int layout_is_plain(const struct layout_params *l);

#endif
