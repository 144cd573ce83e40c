/* The distribution-free interval of a shift between two samples (Moses):
 * analyze/assess/shift_interval.R's shift_interval, the same order
 * statistics of the n_a n_b differences, selected (select_by_partition,
 * selection.c) instead of R's sort of every test's differences; the larger
 * bound among what the smaller left above it.
 *
 * .Call("nbh_shift_interval", test, value, is_x, n_tests, tests, k): rows
 * (test[i] in 1..n_tests, value[i] a log run median, is_x[i] its side);
 * for each of TESTS its rank k (>= 1). Returns list(low, high), one per
 * test 1..n_tests: the k-th smallest and k-th largest of value_x - value_y
 * over every pair, NA for tests not named. */
#include <stdlib.h>
#include "nbh_analyze.h"

typedef struct {
    SEXP test, value, is_x, n_tests, tests, k, out;
    scratch_t scratch;
} shift_job;

static SEXP shift_interval_run(void *data) {
    shift_job *job = data;
    R_xlen_t rows = XLENGTH(job->test);
    int n_tests = asInteger(job->n_tests);
    const int *test = INTEGER(job->test), *is_x = LOGICAL(job->is_x);
    const double *value = REAL(job->value);
    double *low = REAL(VECTOR_ELT(job->out, 0)), *high = REAL(VECTOR_ELT(job->out, 1));
    /* Rows by test: counting sort of their indices. */
    R_xlen_t *start = scratch_alloc(&job->scratch, (size_t)n_tests + 2, sizeof(R_xlen_t));
    R_xlen_t *order = scratch_alloc_dirty(&job->scratch, (size_t)rows + 1, sizeof(R_xlen_t));
    for (R_xlen_t i = 0; i < rows; i++) {
        if (test[i] < 1 || test[i] > n_tests) error("nbh_shift_interval: a test is not in 1..%d", n_tests);
        start[test[i] + 1]++;
    }
    for (int t = 1; t <= n_tests + 1; t++) start[t] += start[t - 1];
    R_xlen_t *next = scratch_alloc(&job->scratch, (size_t)n_tests + 1, sizeof(R_xlen_t));
    for (int t = 0; t <= n_tests; t++) next[t] = start[t];
    for (R_xlen_t i = 0; i < rows; i++) order[next[test[i]]++] = i;
    R_xlen_t largest = 0;
    for (int t = 1; t <= n_tests; t++) {
        R_xlen_t n = start[t + 1] - start[t];
        if (n > largest) largest = n;
    }
    double *x = scratch_alloc_dirty(&job->scratch, (size_t)largest + 1, sizeof(double));
    double *y = scratch_alloc_dirty(&job->scratch, (size_t)largest + 1, sizeof(double));
    double *d = scratch_alloc_dirty(&job->scratch, (size_t)(largest / 2 + 1) * (size_t)(largest / 2 + 1) + 1,
                                    sizeof(double));
    const int *named = INTEGER(job->tests), *rank = INTEGER(job->k);
    for (R_xlen_t s = 0; s < XLENGTH(job->tests); s++) {
        int t = named[s];
        if (t < 1 || t > n_tests) error("nbh_shift_interval: a named test is not in 1..%d", n_tests);
        R_xlen_t nx = 0, ny = 0;
        for (R_xlen_t r = start[t]; r < start[t + 1]; r++) {
            R_xlen_t i = order[r];
            if (is_x[i]) x[nx++] = value[i];
            else y[ny++] = value[i];
        }
        R_xlen_t m = nx * ny, k = rank[s];
        if (k < 1 || k > m) continue;
        R_xlen_t at = 0;
        for (R_xlen_t i = 0; i < nx; i++)
            for (R_xlen_t j = 0; j < ny; j++) d[at++] = x[i] - y[j];
        low[t - 1] = select_by_partition(d, m, k - 1);   /* then every difference from index k on is at least that */
        high[t - 1] = m - k >= k ? select_by_partition(d + k, m - k, m - 2 * k)
                                 : select_by_partition(d, m, m - k);
    }
    return job->out;
}

SEXP nbh_shift_interval(SEXP test, SEXP value, SEXP is_x, SEXP n_tests, SEXP tests, SEXP k) {
    if (!isInteger(test) || !isReal(value) || !isLogical(is_x) || XLENGTH(value) != XLENGTH(test) ||
        XLENGTH(is_x) != XLENGTH(test) || !isInteger(tests) || !isInteger(k) || XLENGTH(k) != XLENGTH(tests)) {
        error("nbh_shift_interval: integer tests, double values, logical sides and integer ranks expected");
    }
    int n = asInteger(n_tests);
    if (n == NA_INTEGER || n < 0) error("nbh_shift_interval: n_tests must be a count");
    SEXP out = PROTECT(allocVector(VECSXP, 2));
    for (int i = 0; i < 2; i++) {
        SEXP v = allocVector(REALSXP, n);
        SET_VECTOR_ELT(out, i, v);
        for (int t = 0; t < n; t++) REAL(v)[t] = NA_REAL;
    }
    SEXP names = PROTECT(allocVector(STRSXP, 2));
    SET_STRING_ELT(names, 0, mkChar("low"));
    SET_STRING_ELT(names, 1, mkChar("high"));
    setAttrib(out, R_NamesSymbol, names);
    shift_job job = {test, value, is_x, n_tests, tests, k, out, {{0}, 0}};
    with_scratch(shift_interval_run, &job, &job.scratch);
    UNPROTECT(2);
    return out;
}
