/* Scratch memory for the routines: malloc'd, outside R's heap, so that a
 * run's large buffers (some 10 MB each) do not set off R's garbage
 * collector again and again (it took a sixth of a run's reading), and
 * freed whether the routine returns or fails: see with_scratch. */
#include <stdlib.h>
#include <string.h>
#include "nbh_analyze.h"

void *scratch_alloc(scratch_t *scratch, size_t count, size_t size) {
    void *block = scratch_alloc_dirty(scratch, count, size);
    memset(block, 0, count * size);
    return block;
}

void *scratch_alloc_dirty(scratch_t *scratch, size_t count, size_t size) {
    if (scratch->count == SCRATCH_BLOCKS) error("nbh_analyze: more scratch blocks than %d", SCRATCH_BLOCKS);
    void *block = malloc((count ? count : 1) * size);
    if (!block) error("nbh_analyze: cannot allocate %.0f bytes", (double)count * (double)size);
    scratch->block[scratch->count++] = block;
    return block;
}

static void free_scratch(void *data) {
    scratch_t *scratch = data;
    for (int k = 0; k < scratch->count; k++) free(scratch->block[k]);
    scratch->count = 0;
}

SEXP with_scratch(SEXP (*routine)(void *), void *data, scratch_t *scratch) {
    scratch->count = 0;
    return R_ExecWithCleanup(routine, data, free_scratch, scratch);
}

void *scratch_reused(int slot, size_t count, size_t size) {
    static void *block[REUSED_BLOCKS];
    static size_t bytes[REUSED_BLOCKS];
    size_t want = (count ? count : 1) * size;
    if (slot < 0 || slot >= REUSED_BLOCKS) error("nbh_analyze: no reused block %d", slot);
    if (want > bytes[slot]) {
        free(block[slot]);
        bytes[slot] = 0;
        block[slot] = malloc(want);
        if (!block[slot]) error("nbh_analyze: cannot allocate %.0f bytes", (double)want);
        bytes[slot] = want;
    }
    return block[slot];
}
