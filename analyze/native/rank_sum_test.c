/* One-sided Wilcoxon rank-sum tests, many at once: analyze/assess/rank_sum_test.R's
 * rank_sum_test_sorted, bit for bit, test by test instead of R's radix
 * order of every (test, value) row and running sums over all of them.
 * Ranks, W and the tie term are integers or halves, exact in doubles; the
 * p-values are R's pwilcox (from a table of its partial sums, see
 * upper_tail) and pnorm, with the same arithmetic on the same operands.
 *
 * .Call("nbh_rank_sum_test", test, value, is_x, n_tests, both): test
 * integer 1..n_tests, value double (no NA), is_x logical, both logical.
 * Returns list(test, n_x, n_y, W, exact, p_x_right, p_y_right), or NULL if
 * a value is NA (R's rank_sum_test_sorted then decides). */
#include <Rmath.h>
#include <string.h>
#include "nbh_analyze.h"

typedef struct {
    double value;
    int is_x;
} row_t;

/* pwilcox(q, m, n, lower.tail = FALSE) from its partial sums, computed once
 * per (m, n): partial[k] = dwilcox(0) + ... + dwilcox(k), added in the order
 * pwilcox adds them (each term is its cwilcox(i) / choose(m + n, n)), so
 * that every value is the one pwilcox returns, for O(1) instead of O(q). */
typedef struct {
    int m, n;
    double *partial;   /* k = 0 .. m n / 2 */
} wilcox_table_t;

#define WILCOX_TABLES 8

static double upper_tail(const wilcox_table_t *t, double q) {
    double mn = (double)t->m * t->n;
    q = floor(q + 1e-7);
    if (q < 0) return 1;
    if (q >= mn) return 0;
    if (q <= mn / 2) return 0.5 - t->partial[(R_xlen_t)q] + 0.5;
    q = mn - q;   /* the shorter sum, of the lower tail */
    return t->partial[(R_xlen_t)q - 1];
}

/* pwilcox(q, m, n, FALSE, FALSE), from the table of (m, n) if there is room for it. */
static double wilcox_upper(wilcox_table_t *tables, int *count, double q, int m, int n) {
    for (int k = 0; k < *count; k++) {
        if (tables[k].m == m && tables[k].n == n) return upper_tail(&tables[k], q);
    }
    if (*count == WILCOX_TABLES) return pwilcox(q, m, n, FALSE, FALSE);
    wilcox_table_t *t = &tables[(*count)++];
    int half = (m * n) / 2;
    t->m = m;
    t->n = n;
    t->partial = (double *)R_alloc((size_t)half + 1, sizeof(double));
    double p = 0;
    for (int i = 0; i <= half; i++) t->partial[i] = p += dwilcox(i, m, n, FALSE);
    return upper_tail(t, q);
}

static void sort_rows(row_t *r, int n) {
    for (int i = 1; i < n; i++) {   /* insertion sort: a test has 2 x nrun rows, usually 20..100 */
        row_t v = r[i];
        int j = i;
        for (; j > 0 && r[j - 1].value > v.value; j--) r[j] = r[j - 1];
        r[j] = v;
    }
}

SEXP nbh_rank_sum_test(SEXP test_, SEXP value_, SEXP is_x_, SEXP n_tests_, SEXP both_) {
    R_xlen_t rows = XLENGTH(test_);
    if (!isInteger(test_) || !isReal(value_) || !isLogical(is_x_) || XLENGTH(value_) != rows ||
        XLENGTH(is_x_) != rows || !isInteger(n_tests_) || XLENGTH(n_tests_) != 1 || !isLogical(both_)) {
        error("nbh_rank_sum_test: test (integer), value (double), is_x (logical), n_tests, both expected");
    }
    const int *test = INTEGER(test_), *is_x = LOGICAL(is_x_);
    const double *value = REAL(value_);
    int n_tests = INTEGER(n_tests_)[0], both = LOGICAL(both_)[0] == TRUE;
    R_xlen_t *start = (R_xlen_t *)R_alloc((size_t)n_tests + 2, sizeof(R_xlen_t));
    memset(start, 0, ((size_t)n_tests + 2) * sizeof(R_xlen_t));
    for (R_xlen_t i = 0; i < rows; i++) {
        if (test[i] == NA_INTEGER || test[i] < 1 || test[i] > n_tests) {
            error("nbh_rank_sum_test: test %d is not in 1..%d", test[i], n_tests);
        }
        if (ISNAN(value[i])) return R_NilValue;
        start[test[i] + 1]++;
    }
    for (int t = 1; t <= n_tests; t++) start[t + 1] += start[t];
    row_t *by_test = (row_t *)R_alloc((size_t)rows + 1, sizeof(row_t));
    R_xlen_t *next = (R_xlen_t *)R_alloc((size_t)n_tests + 2, sizeof(R_xlen_t));
    memcpy(next, start, ((size_t)n_tests + 2) * sizeof(R_xlen_t));
    for (R_xlen_t i = 0; i < rows; i++) by_test[next[test[i]]++] = (row_t){value[i], is_x[i] == TRUE};

    const char *names[] = {"test", "n_x", "n_y", "W", "exact", "p_x_right", "p_y_right", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    int *out_test = INTEGER(SET_VECTOR_ELT(out, 0, allocVector(INTSXP, n_tests)));
    int *out_nx = INTEGER(SET_VECTOR_ELT(out, 1, allocVector(INTSXP, n_tests)));
    int *out_ny = INTEGER(SET_VECTOR_ELT(out, 2, allocVector(INTSXP, n_tests)));
    double *out_w = REAL(SET_VECTOR_ELT(out, 3, allocVector(REALSXP, n_tests)));
    int *out_exact = LOGICAL(SET_VECTOR_ELT(out, 4, allocVector(LGLSXP, n_tests)));
    double *p_x = REAL(SET_VECTOR_ELT(out, 5, allocVector(REALSXP, n_tests)));
    double *p_y = REAL(SET_VECTOR_ELT(out, 6, allocVector(REALSXP, n_tests)));
    wilcox_table_t tables[WILCOX_TABLES];
    int table_count = 0;
    for (int t = 1; t <= n_tests; t++) {
        R_xlen_t size = start[t + 1] - start[t];
        if (size > INT_MAX) error("nbh_rank_sum_test: test %d has too many values", t);
        int n = (int)size, nx = 0;
        row_t *r = by_test + start[t];
        sort_rows(r, n);
        double rank_sum_x = 0, tie_term = 0;
        for (int i = 0; i < n;) {   /* a group of ties, i..j - 1: each gets their average rank */
            int j = i + 1, x_in_group = r[i].is_x;
            while (j < n && r[j].value == r[i].value) x_in_group += r[j++].is_x;
            double group = j - i, rank = (double)(i + 1) + (group - 1) / 2;
            rank_sum_x += rank * x_in_group;
            tie_term += group * group * group - group;
            nx += x_in_group;
            i = j;
        }
        int ny = n - nx;
        double w = rank_sum_x - (double)(nx * (nx + 1)) / 2;
        int exact = nx < 50 && ny < 50 && tie_term == 0;
        out_test[t - 1] = t;
        out_nx[t - 1] = nx;
        out_ny[t - 1] = ny;
        out_w[t - 1] = w;
        out_exact[t - 1] = exact;
        p_x[t - 1] = p_y[t - 1] = NA_REAL;
        if (nx == 0 || ny == 0) continue;
        if (exact) {
            p_x[t - 1] = wilcox_upper(tables, &table_count, w - 1, nx, ny);
            if (both) p_y[t - 1] = wilcox_upper(tables, &table_count, (double)(nx * ny) - w - 1, ny, nx);
        } else {
            int all = nx + ny;
            double sigma =
                sqrt(((double)(nx * ny) / 12) * ((double)(all + 1) - tie_term / (double)(all * (all - 1))));
            double z = w - (double)(nx * ny) / 2;
            p_x[t - 1] = pnorm((z - 0.5) / sigma, 0.0, 1.0, FALSE, FALSE);
            if (both) p_y[t - 1] = pnorm((-z - 0.5) / sigma, 0.0, 1.0, FALSE, FALSE);
        }
    }
    UNPROTECT(1);
    return out;
}
