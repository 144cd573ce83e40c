/* Exact conditional Wilcoxon signed-rank tests of paired differences, many
 * at once, with the Hodges-Lehmann estimate and its distribution-free
 * interval: analyze/assess/signed_rank_test.R's signed_rank_test_sorted,
 * bit for bit.
 *
 * Per test the n differences d are ranked by |d| with midranks, the zeros
 * included (Pratt); V is the sum of the positive differences' ranks. Under
 * the null hypothesis the signs of the m nonzero differences are, given
 * |d|, independent and + or - with probability 1/2: V's exact conditional
 * distribution is that of the sum of a random subset of the nonzero
 * ranks. Doubled midranks are integers; divided by their greatest common
 * divisor g they are the items of the subset-sum recurrence c[s] += c[s - a]
 * (one pass per item, in increasing order), whose c[s] counts the subsets
 * of sum s. The distribution is symmetric (a subset and its complement),
 * so both p-values come from the lower tail up to min(v, S - v), and a
 * tied test counts only that far. Without ties among the nonzero |d| the
 * ranks are z+1..n (z zeros): all tests with the same (z, n) share one
 * table of the whole distribution, grown rank by rank while the tests are
 * visited by increasing n; z = 0's also gives the interval's critical
 * value for every n (qsignrank's own sums, see critical_rank).
 *
 * Counts are doubles: exact up to 2^53 and beyond rounded by 2^-53 at most
 * per addition (at 500 pairs they reach 2^500, beyond any integer type).
 * Scaled by 2^-m (exact: a power of two, normal down to 2^-1022, hence at
 * most MAX_PAIRS pairs) and summed in long double in order, as R's cumsum
 * does, they give F(x) = P(V <= x); the p-values are F or 1 - F.
 *
 * The interval's bounds are order statistics of the n(n + 1)/2 Walsh sums
 * d_i + d_j (i <= j), found by selection (select_walsh_sum), never by
 * sorting them all; rounded sums are monotone in both terms, so counting
 * on the rounded values is exact.
 *
 * .Call("nbh_signed_rank_test", test, value, n_tests, level): test integer
 * 1..n_tests, value double (finite), level in (0, 1). Returns
 * list(test, n, n_zero, V, p_greater, p_less, estimate, ci_low, ci_high). */
#include <R_ext/Utils.h>
#include <Rmath.h>
#include <float.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "nbh_analyze.h"

#define MAX_PAIRS 1000

typedef struct {
    int n, n_zero, tied;
    R_xlen_t start;        /* its sorted differences: sorted + start, n of them */
    long long v2;          /* V doubled */
} test_t;

static long long gcd_ll(long long a, long long b) {
    while (b) {
        long long r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* The p-values of V = v (in units of the items; S their sum) from
 * F(x) = P(V <= x), known for x = t - 1 and t, t = min(v, S - v):
 * P(V <= v) and P(V >= v) = P(V <= S - v). */
static void p_values(long long v, long long S, double f_below, double f_at, double *p_greater, double *p_less) {
    if (2 * v <= S) {   /* t = v: F(v) and 1 - F(v - 1) */
        *p_less = f_at;
        *p_greater = 1 - f_below;
    } else {            /* t = S - v: P(V >= v) = F(S - v), P(V <= v) = 1 - F(S - v - 1) */
        *p_greater = f_at;
        *p_less = 1 - f_below;
    }
}

/* F(t - 1) and F(t) of the counts c[0..t] of m items. */
static void lower_tail(const double *c, long long t, int m, double *f_below, double *f_at) {
    double scale = ldexp(1.0, -m);
    long double sum = 0;
    for (long long s = 0; s < t; s++) sum += c[s] * scale;
    *f_below = (double)sum;
    sum += c[t] * scale;
    *f_at = (double)sum;
}

/* A tied test: the doubled ranks a[0..m-1] (ascending), counted up to the
 * tail its p-values need, in c (room for S / 2 + 1 counts). */
static void tied_p(long long *a, int m, long long v2, double *c, double *p_greater, double *p_less) {
    long long g = 0, S = 0;
    for (int i = 0; i < m; i++) g = gcd_ll(g, a[i]);
    if (g == 0) g = 1;
    for (int i = 0; i < m; i++) S += a[i] /= g;
    long long v = v2 / g, t = 2 * v <= S ? v : S - v, reach = 0;
    c[0] = 1;
    for (long long s = 1; s <= t; s++) c[s] = 0;
    for (int i = 0; i < m; i++) {
        reach += a[i];
        for (long long s = reach < t ? reach : t; s >= a[i]; s--) c[s] += c[s - a[i]];
    }
    double f_below, f_at;
    lower_tail(c, t, m, &f_below, &f_at);
    p_values(v, S, f_below, f_at, p_greater, p_less);
}

/* qsignrank(x, n), R's algorithm on the same counts (c[0..] of ranks 1..n,
 * as csignrank's table: the same additions in the same order; beyond the
 * middle c[u - q], as csignrank reads them). */
static double critical_rank(const double *c, int n, double x) {
    if (x == 0) return 0;
    int u = n * (n + 1) / 2, q = 0;
    double f = exp(-(double)n * M_LN2), p = 0;
#define COUNT(q) c[(q) > u / 2 ? u - (q) : (q)]
    if (x <= 0.5) {
        x = x - 10 * DBL_EPSILON;
        for (;;) {
            p += COUNT(q) * f;
            if (p >= x) break;
            q++;
        }
        return q;
    }
    x = 1 - x + 10 * DBL_EPSILON;
    for (;;) {
        p += COUNT(q) * f;
        if (p > x) return (double)n * (n + 1) / 2 - q;
        q++;
    }
#undef COUNT
}

/* ---- order statistics of the Walsh sums ---- */

typedef struct {
    int *lo, *hi;                   /* n each: the candidates of each row */
    int *below[2], *at_most[2];     /* n each: for a pivot p (0) and the median (1), the last j of each row
                                     * whose sum is < p, <= p (or i - 1) */
    double *pool;                   /* pool_size */
    R_xlen_t pool_size;
    uint64_t random;
} walsh_t;

static uint64_t next_random(uint64_t *state) {   /* xorshift64*: pivots only, not the result */
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

/* For pivot p: below[i], at_most[i] of each row and their counts over all
 * rows, by two pointers (each row's boundary is left of the row above's). */
static void split_rows(const double *x, int n, double p, int *below, int *at_most, R_xlen_t *less, R_xlen_t *not_more) {
    int j_less = n - 1, j_at = n - 1;
    *less = *not_more = 0;
    for (int i = 0; i < n; i++) {
        while (j_less >= i && x[i] + x[j_less] >= p) j_less--;
        while (j_at >= i && x[i] + x[j_at] > p) j_at--;
        below[i] = j_less >= i ? j_less : i - 1;
        at_most[i] = j_at >= i ? j_at : i - 1;
        *less += below[i] - i + 1;
        *not_more += at_most[i] - i + 1;
    }
}

/* The k-th smallest of x[i] + x[j], i <= j, x sorted (row i holds x[i] +
 * x[j], j = i..n-1, ascending), given that it is among the candidates
 * lo[i]..hi[i] of each row, `below` sums lying left of them. A pivot p
 * splits the rows (O(n)); the side holding rank k stays, until p is the
 * k-th or few candidates are left (then a partial sort). The pivots are
 * interpolated (regula falsi on rank against value): between the two
 * sums that bracket rank k -- at first the smallest and largest
 * candidate, then the pivots on either side -- where the target rank
 * would lie, the target a little beyond k on the side not cut last, so
 * that the next pivot falls on the other side and the two leave a pool.
 * The sums of one test's differences are smooth enough that three or
 * four pivots do; a pivot that removed nothing or landed further than a
 * quarter of the candidates from k (skewed, heavy-tailed or tied sums) is
 * followed by a random candidate, so that any data take expected
 * O(n log n). Any pivot gives the same k-th sum: only the path differs.
 * (Random pivots alone took 1.5 times as long; sampled pivot pairs,
 * Floyd-Rivest, as long as random ones.) */
static double select_walsh_sum(const double *x, int n, R_xlen_t k, R_xlen_t below, walsh_t *w) {
    R_xlen_t active = 0;
    for (int i = 0; i < n; i++) active += w->hi[i] - w->lo[i] + 1;
    int *less_j = w->below[0], *at_most_j = w->at_most[0];
    int interpolate = 1, last_cut = 0;   /* -1: the last pivot cut the sums above k; 1: below */
    R_xlen_t margin = w->pool_size / 32;
    /* the bracket: sums v_low (rank r_low) and v_high (rank r_high) around rank k */
    double v_low = R_PosInf, v_high = R_NegInf, r_low = (double)below + 1, r_high = (double)(below + active);
    for (int i = 0; i < n; i++) {
        if (w->hi[i] < w->lo[i]) continue;
        if (x[i] + x[w->lo[i]] < v_low) v_low = x[i] + x[w->lo[i]];
        if (x[i] + x[w->hi[i]] > v_high) v_high = x[i] + x[w->hi[i]];
    }
    while (active > w->pool_size) {
        double p = R_NaN;
        double target = (double)(k + last_cut * margin);   /* a pivot on the side of k not cut last */
        if (interpolate && r_high > r_low) p = v_low + (v_high - v_low) * ((target - r_low) / (r_high - r_low));
        if (!R_FINITE(p)) {
            R_xlen_t r = (R_xlen_t)(next_random(&w->random) % (uint64_t)active);
            int i = 0;
            for (; r >= w->hi[i] - w->lo[i] + 1; i++) r -= w->hi[i] - w->lo[i] + 1;
            p = x[i] + x[w->lo[i] + r];
        }
        R_xlen_t less, not_more;
        split_rows(x, n, p, less_j, at_most_j, &less, &not_more);
        if (less < k && k <= not_more) return p;   /* p is a sum (not_more > less), the k-th */
        last_cut = k <= less ? -1 : 1;
        if (k <= less) {
            v_high = p;
            r_high = (double)less + 0.5;
        } else {
            v_low = p;
            r_low = (double)not_more + 0.5;
        }
        R_xlen_t before = active;
        active = below = 0;
        for (int i = 0; i < n; i++) {
            if (k <= less) {
                if (less_j[i] < w->hi[i]) w->hi[i] = less_j[i];
            } else if (at_most_j[i] + 1 > w->lo[i]) {
                w->lo[i] = at_most_j[i] + 1;
            }
            if (w->hi[i] < w->lo[i] - 1) w->hi[i] = w->lo[i] - 1;
            active += w->hi[i] - w->lo[i] + 1;
            below += w->lo[i] - i;
        }
        interpolate = active < before && 4 * (k <= less ? less - k : k - not_more) <= before;
    }
    R_xlen_t count = 0;
    for (int i = 0; i < n; i++) {
        for (int j = w->lo[i]; j <= w->hi[i]; j++) w->pool[count++] = x[i] + x[j];
    }
    rPsort(w->pool, (int)count, (int)(k - below - 1));
    return w->pool[k - below - 1];
}

/* R's mean(c(a, b)): the long double sum, divided, and corrected once. */
static double r_mean2(double a, double b) {
    long double s = 0;
    s += a;
    s += b;
    s /= 2;
    if (R_FINITE((double)s)) {
        long double t = 0;
        t += a - s;
        t += b - s;
        s += t / 2;
    }
    return (double)s;
}

/* The Hodges-Lehmann estimate (the median of the Walsh averages, as R's
 * median) and the interval of the Walsh averages of ranks qu and
 * M - qu + 1, as wilcox.test(conf.int = TRUE) with the exact distribution.
 * The median first (and its neighbour, for even M); the bounds then among
 * the sums on their side of it. */
static void walsh_interval(const double *x, int n, double qu, walsh_t *w, double *estimate, double *low,
                           double *high) {
    R_xlen_t M = (R_xlen_t)n * (n + 1) / 2, k = (M + 1) / 2, less, not_more;
    for (int i = 0; i < n; i++) {
        w->lo[i] = i;
        w->hi[i] = n - 1;
    }
    double middle = select_walsh_sum(x, n, k, 0, w);
    int *below = w->below[1], *at_most = w->at_most[1];
    split_rows(x, n, middle, below, at_most, &less, &not_more);
    if (M % 2) {
        *estimate = middle / 2;
    } else {
        double next = middle;   /* the (k + 1)-th: the smallest sum above the middle */
        if (not_more < k + 1) {
            next = R_PosInf;
            for (int i = 0; i < n; i++) {
                int j = at_most[i] + 1;
                if (j < n && j >= i && x[i] + x[j] < next) next = x[i] + x[j];
            }
        }
        *estimate = r_mean2(middle / 2, next / 2);
    }
    if (qu == 0) qu = 1;
    for (int i = 0; i < n; i++) {   /* rank qu <= k: among the sums <= middle */
        w->lo[i] = i;
        w->hi[i] = at_most[i];
    }
    *low = select_walsh_sum(x, n, (R_xlen_t)qu, 0, w) / 2;
    for (int i = 0; i < n; i++) {   /* rank M - qu + 1 > k: among the sums >= middle */
        w->lo[i] = below[i] + 1;
        w->hi[i] = n - 1;
    }
    *high = select_walsh_sum(x, n, M - (R_xlen_t)qu + 1, less, w) / 2;
}

/* ---- the tests ---- */

static const test_t *sort_tests;   /* qsort has no context argument */

static int compare_untied(const void *a, const void *b) {
    const test_t *x = &sort_tests[*(const int *)a], *y = &sort_tests[*(const int *)b];
    if (x->n_zero != y->n_zero) return x->n_zero < y->n_zero ? -1 : 1;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    return (*(const int *)a > *(const int *)b) - (*(const int *)a < *(const int *)b);
}

SEXP nbh_signed_rank_test(SEXP test_, SEXP value_, SEXP n_tests_, SEXP level_) {
    R_xlen_t rows = XLENGTH(test_);
    if (!isInteger(test_) || !isReal(value_) || XLENGTH(value_) != rows || !isInteger(n_tests_) ||
        XLENGTH(n_tests_) != 1 || !isReal(level_) || XLENGTH(level_) != 1) {
        error("nbh_signed_rank_test: test (integer), value (double), n_tests (integer), level (double) expected");
    }
    const int *test = INTEGER(test_);
    const double *value = REAL(value_);
    int n_tests = INTEGER(n_tests_)[0];
    double level = REAL(level_)[0];
    if (n_tests < 0 || !(level > 0 && level < 1)) {
        error("nbh_signed_rank_test: n_tests >= 0 and 0 < level < 1 expected");
    }
    R_xlen_t *start = (R_xlen_t *)R_alloc((size_t)n_tests + 2, sizeof(R_xlen_t));
    memset(start, 0, ((size_t)n_tests + 2) * sizeof(R_xlen_t));
    for (R_xlen_t i = 0; i < rows; i++) {
        if (test[i] == NA_INTEGER || test[i] < 1 || test[i] > n_tests) {
            error("nbh_signed_rank_test: test %d is not in 1..%d", test[i], n_tests);
        }
        if (!R_FINITE(value[i])) error("nbh_signed_rank_test: value %.17g is not finite", value[i]);
        start[test[i] + 1]++;
    }
    int n_max = 0;
    for (int t = 1; t <= n_tests; t++) {
        if (start[t + 1] > MAX_PAIRS) error("nbh_signed_rank_test: test %d has more than %d pairs", t, MAX_PAIRS);
        if (start[t + 1] > n_max) n_max = (int)start[t + 1];
        start[t + 1] += start[t];
    }
    double *sorted = (double *)R_alloc((size_t)rows + 1, sizeof(double));
    R_xlen_t *next = (R_xlen_t *)R_alloc((size_t)n_tests + 2, sizeof(R_xlen_t));
    memcpy(next, start, ((size_t)n_tests + 2) * sizeof(R_xlen_t));
    for (R_xlen_t i = 0; i < rows; i++) sorted[next[test[i]]++] = value[i];

    const char *names[] = {"test", "n", "n_zero", "V", "p_greater", "p_less", "estimate", "ci_low", "ci_high", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    int *out_test = INTEGER(SET_VECTOR_ELT(out, 0, allocVector(INTSXP, n_tests)));
    int *out_n = INTEGER(SET_VECTOR_ELT(out, 1, allocVector(INTSXP, n_tests)));
    int *out_zero = INTEGER(SET_VECTOR_ELT(out, 2, allocVector(INTSXP, n_tests)));
    double *out_v = REAL(SET_VECTOR_ELT(out, 3, allocVector(REALSXP, n_tests)));
    double *p_greater = REAL(SET_VECTOR_ELT(out, 4, allocVector(REALSXP, n_tests)));
    double *p_less = REAL(SET_VECTOR_ELT(out, 5, allocVector(REALSXP, n_tests)));
    double *estimate = REAL(SET_VECTOR_ELT(out, 6, allocVector(REALSXP, n_tests)));
    double *ci_low = REAL(SET_VECTOR_ELT(out, 7, allocVector(REALSXP, n_tests)));
    double *ci_high = REAL(SET_VECTOR_ELT(out, 8, allocVector(REALSXP, n_tests)));

    size_t table_size = (size_t)n_max * (n_max + 1) / 2 + 1;
    test_t *tests = (test_t *)R_alloc((size_t)n_tests + 1, sizeof(test_t));
    double *absolute = (double *)R_alloc((size_t)n_max + 1, sizeof(double));
    int *positive = (int *)R_alloc((size_t)n_max + 1, sizeof(int));
    long long *a = (long long *)R_alloc((size_t)n_max + 1, sizeof(long long));
    double *counts = (double *)R_alloc(table_size, sizeof(double));
    int *untied = (int *)R_alloc((size_t)n_tests + 1, sizeof(int));
    int untied_count = 0;

    /* 1. Each test's differences sorted, ranked by |d|; V; a tied test's p. */
    for (int t = 0; t < n_tests; t++) {
        test_t *ts = &tests[t];
        ts->start = start[t + 1];
        ts->n = (int)(start[t + 2] - start[t + 1]);
        double *d = sorted + ts->start;
        R_rsort(d, ts->n);
        int negative = 0, zero = 0;
        while (negative < ts->n && d[negative] < 0) negative++;
        while (negative + zero < ts->n && d[negative + zero] == 0) zero++;
        /* |d| ascending: the negatives from the last, merged with the positives */
        int m = 0, i_neg = negative - 1, i_pos = negative + zero;
        while (i_neg >= 0 || i_pos < ts->n) {
            if (i_pos >= ts->n || (i_neg >= 0 && -d[i_neg] <= d[i_pos])) {
                absolute[m] = -d[i_neg--];
                positive[m++] = 0;
            } else {
                absolute[m] = d[i_pos++];
                positive[m++] = 1;
            }
        }
        ts->n_zero = zero;
        ts->tied = 0;
        ts->v2 = 0;
        for (int i = 0; i < m;) {   /* ties i..j - 1: doubled midrank (z + i + 1) + (z + j) */
            int j = i + 1;
            while (j < m && absolute[j] == absolute[i]) j++;
            if (j - i > 1) ts->tied = 1;
            for (int k = i; k < j; k++) {
                a[k] = 2LL * zero + i + j + 1;
                if (positive[k]) ts->v2 += a[k];
            }
            i = j;
        }
        out_test[t] = t + 1;
        out_n[t] = ts->n;
        out_zero[t] = zero;
        out_v[t] = (double)ts->v2 / 2;
        p_greater[t] = p_less[t] = estimate[t] = ci_low[t] = ci_high[t] = NA_REAL;
        if (ts->n == 0) continue;
        if (ts->tied) {
            tied_p(a, m, ts->v2, counts, &p_greater[t], &p_less[t]);
        } else {
            untied[untied_count++] = t;
        }
    }

    /* 2. The untied tests by (zeros, n), each (zeros) table grown by n; z = 0's
     * table gives the critical ranks for every n present too. */
    double *cumulative = (double *)R_alloc(table_size, sizeof(double));
    double *critical = (double *)R_alloc((size_t)n_max + 1, sizeof(double));
    char *has_n = (char *)R_alloc((size_t)n_max + 1, sizeof(char));
    memset(has_n, 0, (size_t)n_max + 1);
    for (int t = 0; t < n_tests; t++) has_n[tests[t].n] = 1;
    sort_tests = tests;
    qsort(untied, (size_t)untied_count, sizeof(int), compare_untied);
    int u = 0, zero = 0;
    for (;;) {   /* z = 0 first, always; then each z of the untied tests */
        long long S = 0;
        int n = zero, cumulative_n = -1, n_end = zero == 0 ? n_max : 0;
        memset(counts, 0, table_size * sizeof(double));
        counts[0] = 1;
        for (; u < untied_count && tests[untied[u]].n_zero == zero; u++) {
            const test_t *ts = &tests[untied[u]];
            for (; n < ts->n;) {
                n++;
                S += n;
                for (long long s = S; s >= n; s--) counts[s] += counts[s - n];
                if (zero == 0 && has_n[n]) critical[n] = critical_rank(counts, n, (1 - level) / 2);
            }
            if (cumulative_n != n) {
                double scale = ldexp(1.0, -(n - zero));
                long double sum = 0;
                for (long long s = 0; s <= S / 2; s++) cumulative[s] = (double)(sum += counts[s] * scale);
                cumulative_n = n;
            }
            long long v = ts->v2 / 2, t = 2 * v <= S ? v : S - v;
            p_values(v, S, t > 0 ? cumulative[t - 1] : 0, cumulative[t], &p_greater[untied[u]], &p_less[untied[u]]);
        }
        for (; n < n_end;) {   /* z = 0: the critical ranks of the n beyond the untied tests' */
            n++;
            S += n;
            for (long long s = S; s >= n; s--) counts[s] += counts[s - n];
            if (has_n[n]) critical[n] = critical_rank(counts, n, (1 - level) / 2);
        }
        if (u == untied_count) break;
        zero = tests[untied[u]].n_zero;
    }

    /* 3. The estimate and interval of each test. */
    walsh_t w;
    w.lo = (int *)R_alloc((size_t)n_max + 1, sizeof(int));
    w.hi = (int *)R_alloc((size_t)n_max + 1, sizeof(int));
    for (int v = 0; v < 2; v++) {
        w.below[v] = (int *)R_alloc((size_t)n_max + 1, sizeof(int));
        w.at_most[v] = (int *)R_alloc((size_t)n_max + 1, sizeof(int));
    }
    w.pool_size = 4 * (R_xlen_t)n_max + 64;
    w.pool = (double *)R_alloc((size_t)w.pool_size, sizeof(double));
    w.random = 0x9E3779B97F4A7C15ULL;
    for (int t = 0; t < n_tests; t++) {
        if (tests[t].n == 0) continue;
        walsh_interval(sorted + tests[t].start, tests[t].n, critical[tests[t].n], &w, &estimate[t], &ci_low[t],
                       &ci_high[t]);
    }
    UNPROTECT(1);
    return out;
}
