/* Every repetition's time, kept for the cell percentiles (cell_percentiles.c)
 * without sending it back from the workers that read the runs: a block of
 * doubles in memory this process and its forks share (an anonymous shared
 * mapping made before they fork, as work_queue.c's counter). Each run has
 * its region (as many values as its archive's experiments have
 * repetitions); the worker that reduces the run sorts its times into it
 * (tukey_medians.c), and the percentiles are read from it afterwards.
 *
 * .Call("nbh_store_new", size) returns the store (an external pointer) for
 * size doubles, or NULL if no shared memory can be had: then the workers
 * return their sorted times to R instead (the same values, more copying). */
#include <stdlib.h>
#include <sys/mman.h>
#include "nbh_analyze.h"

typedef struct {
    double *values;
    R_xlen_t size;
} store_t;

static void release_store(SEXP handle) {
    store_t *store = R_ExternalPtrAddr(handle);
    if (store) {
        munmap(store->values, (size_t)(store->size ? store->size : 1) * sizeof(double));
        free(store);
    }
    R_ClearExternalPtr(handle);
}

SEXP nbh_store_new(SEXP size_) {
    double size = asReal(size_);
    if (!(size >= 0 && size <= (double)R_XLEN_T_MAX)) error("nbh_store_new: a number of values expected");
    store_t *store = malloc(sizeof *store);
    if (!store) return R_NilValue;
    store->size = (R_xlen_t)size;
    store->values = mmap(NULL, (size_t)(store->size ? store->size : 1) * sizeof(double), PROT_READ | PROT_WRITE,
                         MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (store->values == MAP_FAILED) {
        free(store);
        return R_NilValue;
    }
    SEXP handle = PROTECT(R_MakeExternalPtr(store, R_NilValue, R_NilValue));
    R_RegisterCFinalizerEx(handle, release_store, TRUE);
    UNPROTECT(1);
    return handle;
}

double *store_region(SEXP handle, SEXP offset_, R_xlen_t n) {
    if (isNull(handle)) return NULL;
    store_t *store = TYPEOF(handle) == EXTPTRSXP ? R_ExternalPtrAddr(handle) : NULL;
    if (!store) error("nbh_analyze: not a value store");
    double offset = asReal(offset_);
    if (!(offset >= 0 && offset + (double)n <= (double)store->size)) {
        error("nbh_analyze: %.0f values at %.0f do not fit the value store of %.0f", (double)n, offset,
              (double)store->size);
    }
    return store->values + (R_xlen_t)offset;
}

const double *stored_values(SEXP values, R_xlen_t *size) {
    if (isReal(values)) {
        *size = XLENGTH(values);
        return REAL(values);
    }
    store_t *store = TYPEOF(values) == EXTPTRSXP ? R_ExternalPtrAddr(values) : NULL;
    if (!store) error("nbh_analyze: the values are neither a value store nor a double vector");
    *size = store->size;
    return store->values;
}
