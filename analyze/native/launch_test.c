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
    const char *names[] = {"units", "runs", "estimate", "spread", "ssw", "weighted", "k2", "ssb_raw"};
    SEXP out = PROTECT(allocVector(VECSXP, 8)), labels = PROTECT(allocVector(STRSXP, 8));
    for (int c = 0; c < 8; c++) {
        SET_VECTOR_ELT(out, c, allocVector(c < 2 ? INTSXP : REALSXP, n_tests));
        SET_STRING_ELT(labels, c, mkChar(names[c]));
    }
    setAttrib(out, R_NamesSymbol, labels);
    int *units = INTEGER(VECTOR_ELT(out, 0)), *runs = INTEGER(VECTOR_ELT(out, 1));
    double *estimate = REAL(VECTOR_ELT(out, 2)), *spread = REAL(VECTOR_ELT(out, 3)), *ssw = REAL(VECTOR_ELT(out, 4));
    double *weighted = REAL(VECTOR_ELT(out, 5)), *k2 = REAL(VECTOR_ELT(out, 6)), *ssb_raw = REAL(VECTOR_ELT(out, 7));
    for (int t = 0; t < n_tests; t++) {
        units[t] = runs[t] = 0;
        estimate[t] = spread[t] = weighted[t] = ssw[t] = k2[t] = ssb_raw[t] = NA_REAL;
    }
    R_xlen_t i = 0;
    while (i < n) {
        int t = test[i] - 1;
        /* One test: each run's mean (e), its sum of squares about it, and
         * Welford's running mean and variance of the e over the runs. */
        long double total_all = 0;
        double mean_e = 0, m2_e = 0;
        int r_count = 0, u_count = 0;
        double within = 0, squares_k = 0, raw = 0;
        R_xlen_t j = i;
        while (j < n && test[j] == t + 1) {
            R_xlen_t start = j;
            long double sum = 0;
            while (j < n && test[j] == t + 1 && run[j] == run[start]) sum += value[j++];
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
        units[t] = u_count;
        runs[t] = r_count;
        estimate[t] = mean_e;
        spread[t] = r_count >= 2 ? m2_e / (r_count - 1) : NA_REAL;
        ssw[t] = within;
        weighted[t] = (double)(total_all / u_count);
        k2[t] = squares_k;
        ssb_raw[t] = raw;
        i = j;
    }
    UNPROTECT(2);
    return out;
}
