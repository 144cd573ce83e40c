/* The sync method table: registry/syncs.csv name -> sync_<name>. */
#include "sync/sync.h"

#include <stdlib.h>
#include <string.h>

#define NBH_SYNC_DECLARATION(name) extern const struct sync_method sync_##name;
NBH_SYNCS(NBH_SYNC_DECLARATION)

#define NBH_SYNC_ROW(name) [SYNC_##name] = &sync_##name,
static const struct sync_method *const methods[N_SYNCS] = {NBH_SYNCS(NBH_SYNC_ROW)};

const struct sync_method *sync_method_for(enum sync sync)
{
    return methods[sync];
}

void sync_run_init(struct sync_run *s, enum sync sync, MPI_Comm comm, MPI_Comm base)
{
    memset(s, 0, sizeof(*s));
    s->method = sync_method_for(sync);
    s->comm = comm;
    s->base = base;
    s->measure = sync == SYNC_clock;
}

void sync_run_free(struct sync_run *s)
{
    free(s->local_starts);
    s->local_starts = NULL;
    s->nstarts = s->starts_capacity = 0;
}
