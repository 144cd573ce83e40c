/* The pairs of the paired tests (analyze/assess/paired_test.R): for each
 * test, the units (rounds of runs) both its cells have, with the two
 * sides' values and their log ratio, by merging the cells' rows -- what
 * joining the units with the tests on each cell, then the two sides on
 * (test, unit), gives, without the joins.
 *
 * .Call("nbh_paired_differences", unit, value, first, rows, test, a_cell, b_cell):
 * the units table keyed by (cell, unit): cell c's rows are first[c] ..
 * first[c] + rows[c] - 1 (1-based; rows[c] 0 where it has none), unit
 * ascending within them; per test its number and cells. Returns list(test,
 * unit, a, b, d) by test (in the given order) and unit, d = log(a / b); or
 * NULL where a cell repeats a unit (the joins then decide). */
#include <math.h>
#include "nbh_analyze.h"

/* The units the two cells share: counted (out NULL), or written from at. */
static R_xlen_t merge(const int *unit, const double *value, R_xlen_t a, R_xlen_t a_end, R_xlen_t b, R_xlen_t b_end,
                      int test, SEXP out, R_xlen_t at) {
    R_xlen_t count = 0;
    while (a < a_end && b < b_end) {
        if (unit[a] < unit[b]) {
            a++;
        } else if (unit[b] < unit[a]) {
            b++;
        } else {
            if (out != R_NilValue) {
                INTEGER(VECTOR_ELT(out, 0))[at + count] = test;
                INTEGER(VECTOR_ELT(out, 1))[at + count] = unit[a];
                REAL(VECTOR_ELT(out, 2))[at + count] = value[a];
                REAL(VECTOR_ELT(out, 3))[at + count] = value[b];
                REAL(VECTOR_ELT(out, 4))[at + count] = log(value[a] / value[b]);
            }
            count++;
            a++;
            b++;
        }
    }
    return count;
}

SEXP nbh_paired_differences(SEXP unit_, SEXP value_, SEXP first_, SEXP rows_, SEXP test_, SEXP a_cell_,
                            SEXP b_cell_) {
    if (!isInteger(unit_) || !isReal(value_) || XLENGTH(value_) != XLENGTH(unit_) || !isInteger(first_) ||
        !isInteger(rows_) || XLENGTH(rows_) != XLENGTH(first_) || !isInteger(test_) || !isInteger(a_cell_) ||
        !isInteger(b_cell_) || XLENGTH(a_cell_) != XLENGTH(test_) || XLENGTH(b_cell_) != XLENGTH(test_)) {
        error("nbh_paired_differences: unit (integer), value (double), first, rows, test, a_cell, b_cell "
              "(integer) expected");
    }
    const int *unit = INTEGER(unit_), *first = INTEGER(first_), *rows = INTEGER(rows_);
    const int *test = INTEGER(test_), *a_cell = INTEGER(a_cell_), *b_cell = INTEGER(b_cell_);
    const double *value = REAL(value_);
    R_xlen_t n_units = XLENGTH(unit_), n_cells = XLENGTH(first_), n_tests = XLENGTH(test_), total = 0;
    for (R_xlen_t c = 0; c < n_cells; c++) {
        if (rows[c] == 0) continue;
        if (first[c] < 1 || rows[c] < 0 || (R_xlen_t)first[c] - 1 + rows[c] > n_units) {
            error("nbh_paired_differences: cell %.0f's rows are not in the table", (double)c + 1);
        }
        for (R_xlen_t i = first[c]; i < (R_xlen_t)first[c] - 1 + rows[c]; i++) {
            if (unit[i] == NA_INTEGER || unit[i - 1] == NA_INTEGER || unit[i] <= unit[i - 1]) return R_NilValue;
        }
    }
    for (R_xlen_t t = 0; t < n_tests; t++) {
        int a = a_cell[t], b = b_cell[t];
        if (a == NA_INTEGER || b == NA_INTEGER || a < 1 || b < 1 || a > n_cells || b > n_cells) {
            error("nbh_paired_differences: test %d's cells are not in the table", test[t]);
        }
        total += merge(unit, value, first[a - 1] - 1, first[a - 1] - 1 + rows[a - 1], first[b - 1] - 1,
                       first[b - 1] - 1 + rows[b - 1], test[t], R_NilValue, 0);
    }
    const char *names[] = {"test", "unit", "a", "b", "d", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, 0, allocVector(INTSXP, total));
    SET_VECTOR_ELT(out, 1, allocVector(INTSXP, total));
    for (int k = 2; k < 5; k++) SET_VECTOR_ELT(out, k, allocVector(REALSXP, total));
    R_xlen_t at = 0;
    for (R_xlen_t t = 0; t < n_tests; t++) {
        int a = a_cell[t], b = b_cell[t];
        at += merge(unit, value, first[a - 1] - 1, first[a - 1] - 1 + rows[a - 1], first[b - 1] - 1,
                    first[b - 1] - 1 + rows[b - 1], test[t], out, at);
    }
    UNPROTECT(1);
    return out;
}
