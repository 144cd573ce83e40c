/* One-sided Wilcoxon rank-sum tests, many at once: analyze/assess/rank_sum_test.R's
 * rank_sum_test_sorted, bit for bit, test by test instead of R's radix
 * order of every (test, value) row and running sums over all of them.
 * Ranks, W and the tie term are integers or halves, exact in doubles; the
 * p-values are R's pwilcox (from a table of its partial sums, see
 * upper_tail) and pnorm, with the same arithmetic on the same operands.
 *
 * With exact = TRUE (rank_sum_test(ties = "exact")) the tests that R would
 * approximate, with ties or 50 values or more on a side, get the exact
 * conditional p-value instead: the distribution of the sum of the doubled
 * midranks of a random n_x of the N values, given the midranks (the
 * Streitberg-Roehmel shift algorithm, see shift_counts); tests without ties
 * and with fewer than 50 a side keep pwilcox's values.
 *
 * .Call("nbh_rank_sum_test", test, value, is_x, n_tests, both, exact): test
 * integer 1..n_tests, value double (no NA), is_x logical, both and exact
 * logical. Returns list(test, n_x, n_y, W, exact, p_x_right, p_y_right), or
 * NULL if a value is NA (R's rank_sum_test_sorted then decides). */
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

/* ---- the exact conditional distribution, whatever the ties ---- */

/* The shift algorithm's table, at most: (k + 1) (B + 1) counts, 256 MB.
 * Beyond (some 150 values a side with ties) the normal approximation. */
#define EXACT_CELLS (1LL << 25)

typedef struct {
    int *a, *in_x, *b, *ranks;   /* N each: doubled midranks, membership, the items, 0..N-1 */
    long long *prefix;      /* N + 1 */
    double *counts;         /* room for `room` counts */
    long long room;
    struct {
        int k, N;
        double *cumulative;   /* F of the sums 0 .. k (N - k) of k of the ranks 0..N-1 */
    } tables[WILCOX_TABLES];
    int table_count;
} shift_work_t;

static long long gcd_ll(long long a, long long b) {
    while (b) {
        long long r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* G[j][s], j = 0..k, s = 0..B (rows of B + 1): the number of j-subsets of
 * the items b[0..i-1] with sum s, item by item (b ascending, >= 0):
 * G[j][s] += G[j - 1][s - b_i]. Only what can still end as a k-subset of
 * sum <= B is counted: after item i a j-subset needs k - j more items, at
 * least the next ones, so its sum is at most B - (P[i + k - j] - P[i]) (P
 * the prefix sums); every count kept is the full recurrence's, bit for bit. */
static double *shift_counts(const int *b, int N, int k, long long B, shift_work_t *w) {
    long long width = B + 1;
    if ((k + 1) * width > w->room) {
        w->room = 2 * (k + 1) * width;
        w->counts = (double *)R_alloc((size_t)w->room, sizeof(double));
    }
    double *G = w->counts;
    long long *P = w->prefix;
    memset(G, 0, (size_t)((k + 1) * width) * sizeof(double));
    G[0] = 1;
    P[0] = 0;
    for (int i = 0; i < N; i++) P[i + 1] = P[i] + b[i];
    for (int i = 1; i <= N; i++) {
        int bi = b[i - 1], j_high = i < k ? i : k, j_low = k - (N - i) > 1 ? k - (N - i) : 1;
        for (int j = j_high; j >= j_low; j--) {
            double *row = G + j * width;
            const double *previous = G + (j - 1) * width;
            long long high = B - (P[i + k - j] - P[i]);
            for (long long s = P[j - 1] + bi; s <= high; s++) row[s] += previous[s - bi];
        }
    }
    return G + k * width;
}

/* C(N, k) as R's prod((N - k + 1:k) / 1:k): long double products of doubles. */
static double subsets(int N, int k) {
    long double c = 1;
    for (int j = 1; j <= k; j++) c *= (double)(N - k + j) / j;
    return (double)c;
}

/* The cumulative counts of the k-subset sums of the ranks 0..N-1 (no ties),
 * one table per (k, N) while there is room, or NULL. */
static const double *untied_table(int k, int N, shift_work_t *w) {
    for (int t = 0; t < w->table_count; t++) {
        if (w->tables[t].k == k && w->tables[t].N == N) return w->tables[t].cumulative;
    }
    long long B = (long long)k * (N - k);
    if (w->table_count == WILCOX_TABLES || (k + 1) * (B + 1) > EXACT_CELLS) return NULL;
    for (int i = 0; i < N; i++) w->ranks[i] = i;
    const double *counts = shift_counts(w->ranks, N, k, B, w);
    double *cumulative = (double *)R_alloc((size_t)B + 1, sizeof(double));
    long double sum = 0;
    for (long long s = 0; s <= B; s++) cumulative[s] = (double)(sum += counts[s]);
    w->tables[w->table_count].k = k;
    w->tables[w->table_count].N = N;
    w->tables[w->table_count++].cumulative = cumulative;
    return cumulative;
}

/* The exact conditional p-values of the test whose sorted values have the
 * doubled midranks w->a[0..N-1] (ascending) and membership w->in_x: with
 * T the doubled rank sum of the smaller sample (size k), the tail of T on
 * its side of the mean, P(T <= t) as the count of k-subsets of the items
 * b = a - a_min with sum <= t - k a_min, or P(T >= t) as that of the
 * reflected items a_max - a, each divided by their common divisor; the
 * other tail is 1 - P(below). Returns 0 (nothing set) if the table would
 * exceed EXACT_CELLS. */
static int exact_conditional(int N, int nx, int tied, shift_work_t *w, double *p_x_right, double *p_y_right) {
    const int *a = w->a;
    long long A = 0, tx = 0;
    for (int i = 0; i < N; i++) {
        A += a[i];
        if (w->in_x[i]) tx += a[i];
    }
    int small_is_x = nx <= N - nx, k = small_is_x ? nx : N - nx;
    long long ts = small_is_x ? tx : A - tx;
    int lower = (long long)N * ts <= (long long)k * A;
    long long g = 0, B;
    for (int i = 0; i < N; i++) {
        w->b[i] = lower ? a[i] - a[0] : a[N - 1] - a[N - 1 - i];
        g = gcd_ll(g, w->b[i]);
    }
    if (g == 0) g = 1;
    B = (lower ? ts - (long long)k * a[0] : (long long)k * a[N - 1] - ts) / g;
    if ((k + 1) * (B + 1) > EXACT_CELLS) return 0;
    double total = subsets(N, k), f_below, f_at;
    const double *table = tied ? NULL : untied_table(k, N, w);
    if (table) {
        f_below = B > 0 ? table[B - 1] : 0;
        f_at = table[B];
    } else {
        for (int i = 0; i < N; i++) w->b[i] /= (int)g;
        const double *counts = shift_counts(w->b, N, k, B, w);
        long double sum = 0;
        for (long long s = 0; s < B; s++) sum += counts[s];
        f_below = (double)sum;
        sum += counts[B];
        f_at = (double)sum;
    }
    double small = f_at / total, large = 1 - f_below / total;
    double at_most = lower ? small : large, at_least = lower ? large : small;   /* of T */
    *p_x_right = small_is_x ? at_least : at_most;
    *p_y_right = small_is_x ? at_most : at_least;
    return 1;
}

static void sort_rows(row_t *r, int n) {
    for (int i = 1; i < n; i++) {   /* insertion sort: a test has 2 x nrun rows, usually 20..100 */
        row_t v = r[i];
        int j = i;
        for (; j > 0 && r[j - 1].value > v.value; j--) r[j] = r[j - 1];
        r[j] = v;
    }
}

SEXP nbh_rank_sum_test(SEXP test_, SEXP value_, SEXP is_x_, SEXP n_tests_, SEXP both_, SEXP exact_) {
    R_xlen_t rows = XLENGTH(test_);
    if (!isInteger(test_) || !isReal(value_) || !isLogical(is_x_) || XLENGTH(value_) != rows ||
        XLENGTH(is_x_) != rows || !isInteger(n_tests_) || XLENGTH(n_tests_) != 1 || !isLogical(both_) ||
        !isLogical(exact_) || XLENGTH(exact_) != 1) {
        error("nbh_rank_sum_test: test (integer), value (double), is_x (logical), n_tests, both, exact expected");
    }
    const int *test = INTEGER(test_), *is_x = LOGICAL(is_x_);
    const double *value = REAL(value_);
    int n_tests = INTEGER(n_tests_)[0], both = LOGICAL(both_)[0] == TRUE, exact_ties = LOGICAL(exact_)[0] == TRUE;
    R_xlen_t *start = (R_xlen_t *)R_alloc((size_t)n_tests + 2, sizeof(R_xlen_t));
    memset(start, 0, ((size_t)n_tests + 2) * sizeof(R_xlen_t));
    for (R_xlen_t i = 0; i < rows; i++) {
        if (test[i] == NA_INTEGER || test[i] < 1 || test[i] > n_tests) {
            error("nbh_rank_sum_test: test %d is not in 1..%d", test[i], n_tests);
        }
        if (ISNAN(value[i])) return R_NilValue;
        start[test[i] + 1]++;
    }
    R_xlen_t largest = 0;
    for (int t = 1; t <= n_tests; t++) {
        if (start[t + 1] > largest) largest = start[t + 1];
        start[t + 1] += start[t];
    }
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
    shift_work_t shift = {0};
    if (exact_ties) {
        if (largest > INT_MAX) error("nbh_rank_sum_test: a test has too many values");
        shift.a = (int *)R_alloc((size_t)largest + 1, sizeof(int));
        shift.ranks = (int *)R_alloc((size_t)largest + 1, sizeof(int));
        shift.in_x = (int *)R_alloc((size_t)largest + 1, sizeof(int));
        shift.b = (int *)R_alloc((size_t)largest + 1, sizeof(int));
        shift.prefix = (long long *)R_alloc((size_t)largest + 2, sizeof(long long));
    }
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
            if (exact_ties) {
                for (int k = i; k < j; k++) {
                    shift.a[k] = i + j + 1;   /* doubled: (i + 1) + j */
                    shift.in_x[k] = r[k].is_x;
                }
            }
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
        if (exact_ties && !exact &&
            exact_conditional(n, nx, tie_term != 0, &shift, &p_x[t - 1], both ? &p_y[t - 1] : &(double){0})) {
            out_exact[t - 1] = TRUE;
        } else if (exact) {
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
