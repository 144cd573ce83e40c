/* The two-level test of many tests at once: analyze/assess/launch_test.R's
 * launch_test, the same values, in one pass over rows sorted by test and,
 * within a test, with each run's rows together (as paired_differences
 * gives them: units by run, then round) -- instead of R's grouping of
 * millions of rows twice.
 *
 * .Call("nbh_launch_test", test, run, value, n_tests): rows (test[i] in
 * 1..n_tests, nondecreasing; run[i], nondecreasing within a test; value[i]
 * finite). Returns NULL where the rows are not so ordered (R's code then
 * groups them), else
 * list(units, runs, estimate, spread, ssw, weighted, k2, ssb_raw): per test
 * the sums launch_test.R's per_test holds (estimate NA without units). */
#include "nbh_analyze.h"

/* The columns of launch_test.R's per_test sums for n_tests tests, each
 * test's without units (NA, units and runs 0). */
SEXP launch_sums_new(int n_tests) {
    const char *names[] = {"units", "runs", "estimate", "spread", "ssw", "weighted", "k2", "ssb_raw", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    for (int c = 0; c < 8; c++) {
        SEXP column = SET_VECTOR_ELT(out, c, allocVector(c < 2 ? INTSXP : REALSXP, n_tests));
        for (int t = 0; t < n_tests; t++) {
            if (c < 2) INTEGER(column)[t] = 0;
            else REAL(column)[t] = NA_REAL;
        }
    }
    UNPROTECT(1);
    return out;
}

void launch_sums_of(SEXP out, int t, const int *run, const double *value, R_xlen_t n) {
    /* Each run's mean (e), its sum of squares about it, and Welford's
     * running mean and variance of the e over the runs. */
    long double total_all = 0;
    double mean_e = 0, m2_e = 0;
    int r_count = 0, u_count = 0;
    double within = 0, squares_k = 0, raw = 0;
    R_xlen_t j = 0;
    while (j < n) {
        R_xlen_t start = j;
        long double sum = 0;
        while (j < n && run[j] == run[start]) sum += value[j++];
        int k = (int)(j - start);
        double e = (double)(sum / k), ss = 0;
        for (R_xlen_t q = start; q < j; q++) ss += (value[q] - e) * (value[q] - e);
        within += ss;
        total_all += sum;
        squares_k += (double)k * k;
        raw += k * e * e;
        u_count += k;
        r_count++;
        double delta = e - mean_e;
        mean_e += delta / r_count;
        m2_e += delta * (e - mean_e);
    }
    if (!u_count) return;
    INTEGER(VECTOR_ELT(out, 0))[t] = u_count;
    INTEGER(VECTOR_ELT(out, 1))[t] = r_count;
    REAL(VECTOR_ELT(out, 2))[t] = mean_e;
    REAL(VECTOR_ELT(out, 3))[t] = r_count >= 2 ? m2_e / (r_count - 1) : NA_REAL;
    REAL(VECTOR_ELT(out, 4))[t] = within;
    REAL(VECTOR_ELT(out, 5))[t] = (double)(total_all / u_count);
    REAL(VECTOR_ELT(out, 6))[t] = squares_k;
    REAL(VECTOR_ELT(out, 7))[t] = raw;
}

SEXP nbh_launch_test(SEXP test_, SEXP run_, SEXP value_, SEXP n_tests_) {
    R_xlen_t n = XLENGTH(test_);
    if (!isInteger(test_) || !isInteger(run_) || !isReal(value_) || XLENGTH(run_) != n || XLENGTH(value_) != n) {
        error("nbh_launch_test: integer tests and runs and double values of one length expected");
    }
    int n_tests = asInteger(n_tests_);
    if (n_tests == NA_INTEGER || n_tests < 0) error("nbh_launch_test: n_tests must be a count");
    const int *test = INTEGER(test_), *run = INTEGER(run_);
    const double *value = REAL(value_);
    for (R_xlen_t i = 0; i < n; i++) {
        if (test[i] < 1 || test[i] > n_tests || (i > 0 && test[i] < test[i - 1])) return R_NilValue;
        if (i > 0 && test[i] == test[i - 1] && run[i] < run[i - 1]) return R_NilValue;   /* a run's rows apart */
    }
    SEXP out = PROTECT(launch_sums_new(n_tests));
    for (R_xlen_t i = 0; i < n;) {
        R_xlen_t j = i;
        while (j < n && test[j] == test[i]) j++;
        launch_sums_of(out, test[i] - 1, run + i, value + i, j - i);
        i = j;
    }
    UNPROTECT(1);
    return out;
}
