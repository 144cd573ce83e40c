/* The registry lists (registry/NAME.csv) as C enums and tables.
 * Every name the kernel knows comes from here; nothing is spelled twice. */
#ifndef NBH_CATALOG_H
#define NBH_CATALOG_H

#include <stddef.h>

#include "registry.h"

#define NBH_ENUM_OP(name, ...) OP_##name,
#define NBH_ENUM_TOPOLOGY(name, ...) TOPOLOGY_##name,
#define NBH_ENUM_CONSTRUCTOR(name) CONSTRUCTOR_##name,
#define NBH_ENUM_ORDER(name) ORDER_##name,
#define NBH_ENUM_DATATYPE(name, ...) DATATYPE_##name,
#define NBH_ENUM_PARAMETER(name, ...) PARAMETER_##name,
#define NBH_ENUM_ARRIVAL(name) ARRIVAL_##name,
#define NBH_ENUM_SYNC(name) SYNC_##name,

enum operation { NBH_OPERATIONS(NBH_ENUM_OP) N_OPERATIONS };
enum topology { NBH_TOPOLOGIES(NBH_ENUM_TOPOLOGY) N_TOPOLOGIES };
enum constructor { NBH_CONSTRUCTORS(NBH_ENUM_CONSTRUCTOR) N_CONSTRUCTORS };
enum order { NBH_ORDERS(NBH_ENUM_ORDER) N_ORDERS };
enum datatype { NBH_DATATYPES(NBH_ENUM_DATATYPE) N_DATATYPES };
enum parameter { NBH_PARAMETERS(NBH_ENUM_PARAMETER) N_PARAMETERS };
enum arrival { NBH_ARRIVALS(NBH_ENUM_ARRIVAL) N_ARRIVALS };
enum sync { NBH_SYNCS(NBH_ENUM_SYNC) N_SYNCS };

struct operation_info {
    const char *name;
    const char *family;   /* neighbor, global, create, p2p */
    const char *pattern;  /* allgather, alltoall, bcast, "" for create */
    const char *variant;  /* "", v, w */
    int blocking;
    int persistent;       /* MPI-4 persistent: _init once, then MPI_Start + MPI_Wait */
    int moves_data;
    const char *send_blocks;  /* blocks a process sends: one, degree (outdegree), nprocs; "" */
    const char *recv_blocks;  /* blocks a process receives: one, degree (indegree), nprocs; "" */
    int work_reference;   /* enum operation: whose time without work work_factor multiplies */
};

struct topology_info {
    const char *name;
    const char *constructors; /* space-separated; the first is the default */
    const char *orders;       /* space-separated; the first is the default */
    int grid;                 /* ndim and nfin apply */
    int radius;               /* radius applies */
};

struct datatype_info {
    const char *name;
    int size;
};

struct parameter_info {
    const char *name;
    const char *type;        /* integer, number, word */
    const char *applies_to;
    unsigned long long min;  /* the range the kernel accepts; NBH_NO_BOUND: none */
    unsigned long long max;
};

extern const struct operation_info operation_table[N_OPERATIONS];
extern const struct topology_info topology_table[N_TOPOLOGIES];
extern const char *const constructor_names[N_CONSTRUCTORS];
extern const char *const order_names[N_ORDERS];
extern const struct datatype_info datatype_table[N_DATATYPES];
extern const struct parameter_info parameter_table[N_PARAMETERS];
extern const char *const arrival_names[N_ARRIVALS];
extern const char *const sync_names[N_SYNCS];

/* Index of `word` among `n` names spaced `stride` bytes apart, or -1. */
int catalog_find(const void *table, int n, size_t stride, const char *word);
/* Whether `word` is one of the space-separated words of `list`. */
int catalog_list_has(const char *list, const char *word);
/* The first word of a space-separated list, copied into out. */
void catalog_list_first(const char *list, char *out, size_t size);

#endif
