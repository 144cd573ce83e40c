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
 * NULL where a cell repeats a unit (the joins then decide).
 *
 * .Call("nbh_paired_launch_sums", unit, value, first, rows, test, a_cell,
 * b_cell, run_of_unit, n_tests): the same pairs handed to the two-level
 * test as they are merged (launch_test.c's sums, as nbh_launch_test gives
 * them for the pairs' (test, run_of_unit[unit], d)), without the pairs'
 * table; NULL where a cell repeats a unit, run_of_unit is not
 * nondecreasing or a d is not finite (paired_test.R then takes the pairs'
 * way, which says why). */
#include <math.h>
#include "nbh_analyze.h"

/* The rows of the units the two cells (rows a .. a_end - 1 and b ..
 * b_end - 1, units ascending in each) share, in unit order: their number,
 * and the rows of each pair in at_a and at_b unless NULL. */
static R_xlen_t shared_rows(const int *unit, R_xlen_t a, R_xlen_t a_end, R_xlen_t b, R_xlen_t b_end, R_xlen_t *at_a,
                            R_xlen_t *at_b) {
    R_xlen_t count = 0;
    while (a < a_end && b < b_end) {
        if (unit[a] < unit[b]) {
            a++;
        } else if (unit[b] < unit[a]) {
            b++;
        } else {
            if (at_a) at_a[count] = a, at_b[count] = b;
            count++;
            a++;
            b++;
        }
    }
    return count;
}

/* The largest number of rows a cell has: room for any test's pairs. */
static R_xlen_t most_rows(SEXP rows_) {
    const int *rows = INTEGER(rows_);
    int most = 0;
    for (R_xlen_t c = 0; c < XLENGTH(rows_); c++) {
        if (rows[c] > most) most = rows[c];
    }
    return most;
}

/* The checks both routines make: the arguments' types, every cell's rows
 * in the table and every test's cells known; 0 where a cell repeats a
 * unit. */
static int check_pairs(const char *routine, SEXP unit_, SEXP value_, SEXP first_, SEXP rows_, SEXP test_,
                       SEXP a_cell_, SEXP b_cell_) {
    if (!isInteger(unit_) || !isReal(value_) || XLENGTH(value_) != XLENGTH(unit_) || !isInteger(first_) ||
        !isInteger(rows_) || XLENGTH(rows_) != XLENGTH(first_) || !isInteger(test_) || !isInteger(a_cell_) ||
        !isInteger(b_cell_) || XLENGTH(a_cell_) != XLENGTH(test_) || XLENGTH(b_cell_) != XLENGTH(test_)) {
        error("%s: unit (integer), value (double), first, rows, test, a_cell, b_cell (integer) expected", routine);
    }
    const int *unit = INTEGER(unit_), *first = INTEGER(first_), *rows = INTEGER(rows_);
    const int *test = INTEGER(test_), *a_cell = INTEGER(a_cell_), *b_cell = INTEGER(b_cell_);
    R_xlen_t n_units = XLENGTH(unit_), n_cells = XLENGTH(first_), n_tests = XLENGTH(test_);
    for (R_xlen_t c = 0; c < n_cells; c++) {
        if (rows[c] == 0) continue;
        if (first[c] < 1 || rows[c] < 0 || (R_xlen_t)first[c] - 1 + rows[c] > n_units) {
            error("%s: cell %.0f's rows are not in the table", routine, (double)c + 1);
        }
        for (R_xlen_t i = first[c]; i < (R_xlen_t)first[c] - 1 + rows[c]; i++) {
            if (unit[i] == NA_INTEGER || unit[i - 1] == NA_INTEGER || unit[i] <= unit[i - 1]) return 0;
        }
    }
    for (R_xlen_t t = 0; t < n_tests; t++) {
        int a = a_cell[t], b = b_cell[t];
        if (a == NA_INTEGER || b == NA_INTEGER || a < 1 || b < 1 || a > n_cells || b > n_cells) {
            error("%s: test %d's cells are not in the table", routine, test[t]);
        }
    }
    return 1;
}

SEXP nbh_paired_differences(SEXP unit_, SEXP value_, SEXP first_, SEXP rows_, SEXP test_, SEXP a_cell_,
                            SEXP b_cell_) {
    if (!check_pairs("nbh_paired_differences", unit_, value_, first_, rows_, test_, a_cell_, b_cell_)) {
        return R_NilValue;
    }
    const int *unit = INTEGER(unit_), *first = INTEGER(first_), *rows = INTEGER(rows_);
    const int *test = INTEGER(test_), *a_cell = INTEGER(a_cell_), *b_cell = INTEGER(b_cell_);
    const double *value = REAL(value_);
    R_xlen_t n_tests = XLENGTH(test_), total = 0;
    for (R_xlen_t t = 0; t < n_tests; t++) {
        int a = a_cell[t], b = b_cell[t];
        total += shared_rows(unit, first[a - 1] - 1, first[a - 1] - 1 + rows[a - 1], first[b - 1] - 1,
                             first[b - 1] - 1 + rows[b - 1], NULL, NULL);
    }
    const char *names[] = {"test", "unit", "a", "b", "d", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    int *out_test = INTEGER(SET_VECTOR_ELT(out, 0, allocVector(INTSXP, total)));
    int *out_unit = INTEGER(SET_VECTOR_ELT(out, 1, allocVector(INTSXP, total)));
    double *out_a = REAL(SET_VECTOR_ELT(out, 2, allocVector(REALSXP, total)));
    double *out_b = REAL(SET_VECTOR_ELT(out, 3, allocVector(REALSXP, total)));
    double *out_d = REAL(SET_VECTOR_ELT(out, 4, allocVector(REALSXP, total)));
    R_xlen_t most = most_rows(rows_);
    R_xlen_t *at_a = (R_xlen_t *)R_alloc((size_t)most + 1, sizeof(R_xlen_t));
    R_xlen_t *at_b = (R_xlen_t *)R_alloc((size_t)most + 1, sizeof(R_xlen_t));
    R_xlen_t at = 0;
    for (R_xlen_t t = 0; t < n_tests; t++) {
        int a = a_cell[t], b = b_cell[t];
        R_xlen_t count = shared_rows(unit, first[a - 1] - 1, first[a - 1] - 1 + rows[a - 1], first[b - 1] - 1,
                                     first[b - 1] - 1 + rows[b - 1], at_a, at_b);
        for (R_xlen_t k = 0; k < count; k++, at++) {
            out_test[at] = test[t];
            out_unit[at] = unit[at_a[k]];
            out_a[at] = value[at_a[k]];
            out_b[at] = value[at_b[k]];
            out_d[at] = log(value[at_a[k]] / value[at_b[k]]);
        }
    }
    UNPROTECT(1);
    return out;
}

typedef struct {
    SEXP unit, value, first, rows, test, a_cell, b_cell, run_of_unit;
    int n_tests;
    scratch_t scratch;
} launch_pairs_t;

static SEXP paired_launch_sums(void *data) {
    launch_pairs_t *call = data;
    const int *unit = INTEGER(call->unit), *first = INTEGER(call->first), *rows = INTEGER(call->rows);
    const int *test = INTEGER(call->test), *a_cell = INTEGER(call->a_cell), *b_cell = INTEGER(call->b_cell);
    const int *run_of_unit = INTEGER(call->run_of_unit);
    const double *value = REAL(call->value);
    R_xlen_t n_tests = XLENGTH(call->test), n_runs = XLENGTH(call->run_of_unit);
    R_xlen_t most = most_rows(call->rows);
    int *run = scratch_alloc_dirty(&call->scratch, (size_t)most + 1, sizeof(int));
    double *d = scratch_alloc_dirty(&call->scratch, (size_t)most + 1, sizeof(double));
    R_xlen_t *at_a = scratch_alloc_dirty(&call->scratch, (size_t)most + 1, sizeof(R_xlen_t));
    R_xlen_t *at_b = scratch_alloc_dirty(&call->scratch, (size_t)most + 1, sizeof(R_xlen_t));
    SEXP out = PROTECT(launch_sums_new(call->n_tests));
    for (R_xlen_t t = 0; t < n_tests; t++) {
        if (test[t] == NA_INTEGER || test[t] < 1 || test[t] > call->n_tests) {
            error("nbh_paired_launch_sums: test %d is not in 1..%d", test[t], call->n_tests);
        }
        R_xlen_t a = first[a_cell[t] - 1] - 1, b = first[b_cell[t] - 1] - 1;
        R_xlen_t count = shared_rows(unit, a, a + rows[a_cell[t] - 1], b, b + rows[b_cell[t] - 1], at_a, at_b);
        for (R_xlen_t k = 0; k < count; k++) {
            int u = unit[at_a[k]];
            if (u < 1 || u > n_runs) error("nbh_paired_launch_sums: unit %d has no run", u);
            run[k] = run_of_unit[u - 1];
            d[k] = log(value[at_a[k]] / value[at_b[k]]);
            if (!isfinite(d[k])) {
                UNPROTECT(1);
                return R_NilValue;
            }
        }
        launch_sums_of(out, test[t] - 1, run, d, count);
    }
    UNPROTECT(1);
    return out;
}

SEXP nbh_paired_launch_sums(SEXP unit_, SEXP value_, SEXP first_, SEXP rows_, SEXP test_, SEXP a_cell_,
                            SEXP b_cell_, SEXP run_of_unit_, SEXP n_tests_) {
    if (!check_pairs("nbh_paired_launch_sums", unit_, value_, first_, rows_, test_, a_cell_, b_cell_)) {
        return R_NilValue;
    }
    int n_tests = asInteger(n_tests_);
    if (!isInteger(run_of_unit_) || n_tests == NA_INTEGER || n_tests < 0) {
        error("nbh_paired_launch_sums: the run of every unit (integer) and a count of tests expected");
    }
    const int *run_of_unit = INTEGER(run_of_unit_);
    for (R_xlen_t u = 1; u < XLENGTH(run_of_unit_); u++) {
        if (run_of_unit[u] < run_of_unit[u - 1]) return R_NilValue;   /* a run's units apart */
    }
    launch_pairs_t call = {unit_, value_, first_, rows_, test_, a_cell_, b_cell_, run_of_unit_, n_tests, {{0}, 0}};
    return with_scratch(paired_launch_sums, &call, &call.scratch);
}
