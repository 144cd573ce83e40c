/* A tally of finished items that this process and its forks share (an
 * anonymous shared mapping made before they fork), for a progress line
 * that any of them may print: how many are done, and the slowest so far.
 *
 * .Call("nbh_tally_new") returns the tally (an external pointer) or NULL if
 * no shared memory can be had; .Call("nbh_tally_add", tally, item, seconds)
 * counts item as done in `seconds` and returns c(done, slowest seconds,
 * the slowest's item), as they stand after it, in every process together. */
#include <sys/mman.h>
#include "nbh_analyze.h"

struct tally {
    char lock;
    int done;
    int slowest_item;
    double slowest;
};

static void release_tally(SEXP tally) {
    struct tally *t = R_ExternalPtrAddr(tally);
    if (t) munmap(t, sizeof *t);
    R_ClearExternalPtr(tally);
}

SEXP nbh_tally_new(void) {
    struct tally *t = mmap(NULL, sizeof *t, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (t == MAP_FAILED) return R_NilValue;
    *t = (struct tally){0, 0, 0, -1};
    SEXP tally = PROTECT(R_MakeExternalPtr(t, R_NilValue, R_NilValue));
    R_RegisterCFinalizerEx(tally, release_tally, TRUE);
    UNPROTECT(1);
    return tally;
}

SEXP nbh_tally_add(SEXP tally, SEXP item, SEXP seconds) {
    struct tally *t = TYPEOF(tally) == EXTPTRSXP ? R_ExternalPtrAddr(tally) : NULL;
    if (!t) error("nbh_tally_add: not a tally");
    int i = asInteger(item);
    double s = asReal(seconds);
    while (__atomic_test_and_set(&t->lock, __ATOMIC_ACQUIRE))
        ;
    t->done++;
    if (s > t->slowest) t->slowest = s, t->slowest_item = i;
    double now[3] = {t->done, t->slowest, t->slowest_item};
    __atomic_clear(&t->lock, __ATOMIC_RELEASE);
    SEXP out = PROTECT(allocVector(REALSXP, 3));
    for (int k = 0; k < 3; k++) REAL(out)[k] = now[k];
    UNPROTECT(1);
    return out;
}
