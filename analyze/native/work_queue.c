/* A queue of items for forked workers: a counter in memory that this
 * process and its forks share (an anonymous shared mapping made before they
 * fork), so that each worker takes the next item when it is free instead of
 * a fixed share. On a machine whose cores run at different speeds, or are
 * busy with other work, no worker then waits for a slow one's last items.
 *
 * .Call("nbh_queue_new") returns the queue (an external pointer) or NULL if
 * no shared memory can be had; .Call("nbh_queue_take", queue) the next item,
 * 1, 2, ... in every process together, each number once. */
#include <sys/mman.h>
#include "nbh_analyze.h"

static void release_queue(SEXP queue) {
    int *counter = R_ExternalPtrAddr(queue);
    if (counter) munmap(counter, sizeof *counter);
    R_ClearExternalPtr(queue);
}

SEXP nbh_queue_new(void) {
    int *counter = mmap(NULL, sizeof *counter, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (counter == MAP_FAILED) return R_NilValue;
    *counter = 0;
    SEXP queue = PROTECT(R_MakeExternalPtr(counter, R_NilValue, R_NilValue));
    R_RegisterCFinalizerEx(queue, release_queue, TRUE);
    UNPROTECT(1);
    return queue;
}

SEXP nbh_queue_take(SEXP queue) {
    int *counter = TYPEOF(queue) == EXTPTRSXP ? R_ExternalPtrAddr(queue) : NULL;
    if (!counter) error("nbh_queue_take: not a queue");
    return ScalarInteger(__atomic_add_fetch(counter, 1, __ATOMIC_SEQ_CST));
}
