#include "catalog.h"

#include <string.h>

#define NBH_OP_ROW(name, family, pattern, variant, blocking, persistent, moves_data, send_blocks, recv_blocks, \
                   work_reference)                                                                     \
    {#name, family, pattern, variant, blocking, persistent, moves_data, send_blocks, recv_blocks,          \
     OP_##work_reference},
#define NBH_TOPOLOGY_ROW(name, constructors, orders, grid, radius) \
    {#name, constructors, orders, grid, radius},
#define NBH_NAME_ROW(name) #name,
#define NBH_DATATYPE_ROW(name, mpi_type, size) {#name, size},
#define NBH_PARAMETER_ROW(name, type, applies_to, min, max) {#name, type, applies_to, min, max},

const struct operation_info operation_table[N_OPERATIONS] = {NBH_OPERATIONS(NBH_OP_ROW)};
const struct topology_info topology_table[N_TOPOLOGIES] = {NBH_TOPOLOGIES(NBH_TOPOLOGY_ROW)};
const char *const constructor_names[N_CONSTRUCTORS] = {NBH_CONSTRUCTORS(NBH_NAME_ROW)};
const char *const order_names[N_ORDERS] = {NBH_ORDERS(NBH_NAME_ROW)};
const struct datatype_info datatype_table[N_DATATYPES] = {NBH_DATATYPES(NBH_DATATYPE_ROW)};
const struct parameter_info parameter_table[N_PARAMETERS] = {NBH_PARAMETERS(NBH_PARAMETER_ROW)};
const char *const arrival_names[N_ARRIVALS] = {NBH_ARRIVALS(NBH_NAME_ROW)};
const char *const sync_names[N_SYNCS] = {NBH_SYNCS(NBH_NAME_ROW)};

int catalog_find(const void *table, int n, size_t stride, const char *word)
{
    for (int i = 0; i < n; i++) {
        const char *name = *(const char *const *)((const char *)table + (size_t)i * stride);
        if (strcmp(name, word) == 0)
            return i;
    }
    return -1;
}

int catalog_list_has(const char *list, const char *word)
{
    size_t len = strlen(word);
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, " ");
        if (n == len && strncmp(p, word, len) == 0)
            return 1;
        p += n;
        p += strspn(p, " ");
    }
    return 0;
}

void catalog_list_first(const char *list, char *out, size_t size)
{
    size_t n = strcspn(list, " ");
    if (n >= size)
        n = size - 1;
    memcpy(out, list, n);
    out[n] = '\0';
}
