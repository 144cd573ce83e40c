#include "datatypes/layout_catalog.h"

#include "catalog.h"

#define NBH_LAYOUT_ROW(name, parameters, normal, constructors, packings, msize, ops, topologies) \
    {#name, parameters, normal, constructors, packings, msize, ops, topologies},
#define NBH_LAYOUT_NAME(name) #name,

const struct layout_info layout_table[N_LAYOUTS] = {NBH_LAYOUTS(NBH_LAYOUT_ROW)};
const char *const type_constructor_names[N_TYPE_CONSTRUCTORS] = {NBH_TYPE_CONSTRUCTORS(NBH_LAYOUT_NAME)};
const char *const packing_names[N_PACKINGS] = {NBH_PACKINGS(NBH_LAYOUT_NAME)};

enum type_constructor layout_normal(enum layout l)
{
    return (enum type_constructor)catalog_find(type_constructor_names, N_TYPE_CONSTRUCTORS,
                                                sizeof(type_constructor_names[0]), layout_table[l].normal);
}

int layout_is_plain(const struct layout_params *l)
{
    return l->layout == LAYOUT_contiguous && l->constructor == TYPE_CONSTRUCTOR_basic &&
           l->packing == PACKING_datatype;
}
