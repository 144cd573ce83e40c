/* The exact bootstrap variance of the log median of every cell's run
 * medians: analyze/assess/ratio_ci.R's log_median_var_matrix, bit for bit, one
 * column at a time instead of R's matrices of every pair's log. As R's
 * colSums, the sums are kept in long double and rounded once.
 *
 * .Call("nbh_log_median_var", x, i, j, p): x a double matrix, one sorted
 * column of n run medians per cell; the resampled median is
 * (x[i[k]] + x[j[k]]) / 2 (i, j 1-based) with probability p[k]. Returns
 * var*(log median) per column, never below 0. */
#include <math.h>
#include "nbh_analyze.h"

SEXP nbh_log_median_var(SEXP x_, SEXP i_, SEXP j_, SEXP p_) {
    SEXP dim = getAttrib(x_, R_DimSymbol);
    R_xlen_t pairs = XLENGTH(p_);
    if (!isReal(x_) || !isInteger(dim) || LENGTH(dim) != 2 || !isInteger(i_) || !isInteger(j_) || !isReal(p_) ||
        XLENGTH(i_) != pairs || XLENGTH(j_) != pairs) {
        error("nbh_log_median_var: a double matrix, positions i and j and probabilities p expected");
    }
    int n = INTEGER(dim)[0], columns = INTEGER(dim)[1];
    const int *i = INTEGER(i_), *j = INTEGER(j_);
    const double *p = REAL(p_);
    for (R_xlen_t k = 0; k < pairs; k++) {
        if (i[k] < 1 || i[k] > n || j[k] < 1 || j[k] > n) error("nbh_log_median_var: a position is not in 1..%d", n);
    }
    SEXP out = PROTECT(allocVector(REALSXP, columns));
    for (int c = 0; c < columns; c++) {
        const double *x = REAL(x_) + (R_xlen_t)c * n;
        double twice_middle = 2 * (x[(n + 1) / 2 - 1] / 2 + x[n / 2] / 2);
        long double sum = 0, sum_of_squares = 0;
        for (R_xlen_t k = 0; k < pairs; k++) {
            double v = log((x[i[k] - 1] + x[j[k] - 1]) / twice_middle);
            double weighted = p[k] * v;
            sum += weighted;
            sum_of_squares += weighted * v;
        }
        double mean = (double)sum, spread = (double)sum_of_squares - mean * mean;
        REAL(out)[c] = spread < 0 ? 0 : spread;
    }
    UNPROTECT(1);
    return out;
}
