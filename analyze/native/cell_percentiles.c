/* Tail latencies (analyze/reduce/percentiles.R): per cell, the 50th, 90th
 * and 99th percentile of every repetition of every run, and of those the
 * Tukey filter kept in each run, from the sorted times of each run that
 * reduce_runs left in the value store (value_store.c) or in a vector.
 *
 * The percentile is numpy's default (method "linear", R's quantile type
 * 7), computed as numpy computes it, so that the values are numpy's bit
 * for bit: q = p / 100, the virtual index v = (N - 1) q, i = floor(v),
 * g = v - i, a = x(i), b = x(i+1) (0-based order statistics); the largest
 * value when v >= N - 1; else a + (b - a) g, or b - (b - a)(1 - g) when
 * g >= 0.5 (numpy's _lerp). Each run's times are sorted already, so an
 * order statistic of the cell is found among the runs as they lie: a
 * pivot's rank is a binary search per run (kth_of_runs), and only the few
 * times a handful of pivots leave are gathered and selected (Wirth's) --
 * not every time of the cell copied and selected.
 *
 * .Call("nbh_cell_percentiles", values, at, n, below, kept, rows): values
 * the store or a double vector; row r (0-based) of the run medians holds
 * the sorted times values[at[r] .. at[r] + n[r] - 1], of which the Tukey
 * filter kept the kept[r] from position below[r] on; the rows come cell by
 * cell, rows[c] of them for cell c. Returns list(count, p50, p90, p99,
 * count_kept, p50_kept, p90_kept, p99_kept), one element per cell (NA for
 * a cell without values). */
#include <math.h>
#include <string.h>
#include "nbh_analyze.h"

static const double PERCENTS[] = {50, 90, 99};
#define N_PERCENTS 3

static double percentile_linear(double a, double b, double g) {
    double d = b - a;
    return g >= 0.5 ? b - d * (1 - g) : a + d * g;
}

double percentile_of_sorted(const double *x, R_xlen_t n, double percent) {
    if (n < 1) return NA_REAL;
    double v = (double)(n - 1) * (percent / 100);
    if (v >= (double)(n - 1)) return x[n - 1];
    R_xlen_t i = (R_xlen_t)floor(v);
    return percentile_linear(x[i], x[i + 1], v - (double)i);
}

/* Puts the k-th smallest of a[0..n-1] at a[k], the smaller before it, the
 * larger after it (Wirth's selection); returns it. */
static double select_kth(double *a, R_xlen_t n, R_xlen_t k) {
    R_xlen_t l = 0, m = n - 1;
    while (l < m) {
        double pivot = a[k];
        R_xlen_t i = l, j = m;
        do {
            while (a[i] < pivot) i++;
            while (pivot < a[j]) j--;
            if (i <= j) {
                double t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        } while (i <= j);
        if (j < k) l = i;
        if (k < i) m = j;
    }
    return a[k];
}

/* ---- order statistics of a cell: the union of its runs' sorted times ---- */

/* A run's candidates: its sorted times x[lo..hi-1]. */
typedef struct {
    const double *x;
    int lo, hi, n;      /* the window, and the run's whole length */
} run_window_t;

/* The first i in lo..hi-1 with x[i] > p (strictly, or >= p when `at_least`), else hi. */
static int first_above(const double *x, int lo, int hi, double p, int at_least) {
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (at_least ? x[mid] < p : x[mid] <= p) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

#define GATHERED 48     /* candidates few enough to gather and select */
#define NARROWINGS 8    /* at most this many pivots; then whatever is left is gathered */

typedef struct {
    run_window_t *runs;
    int count;                          /* runs of the cell */
    int *less, *not_more;               /* count each: a pivot's position in each window */
    double *guesses, *buffer;           /* count; the cell's values */
} cell_runs_t;

/* The k-th smallest (0-based) of the union of the runs' sorted times. Each
 * run's times are sorted, so a pivot's rank is a binary search per run:
 * the pivot is the median of the runs' values at the target's relative
 * position in their windows (times of one cell: the runs' quantiles are
 * close to the union's), and each pivot leaves the windows on the target's
 * side of it. What is left after a few pivots is gathered and selected.
 * The same order statistic as selecting among all the times gathered. */
static double kth_of_runs(cell_runs_t *c, R_xlen_t k) {
    R_xlen_t below = 0;   /* the times left of every window */
    for (int r = 0; r < c->count; r++) {
        c->runs[r].lo = 0;
        c->runs[r].hi = c->runs[r].n;
    }
    for (int step = 0;; step++) {
        R_xlen_t active = 0;
        for (int r = 0; r < c->count; r++) active += c->runs[r].hi - c->runs[r].lo;
        if (active <= GATHERED || step == NARROWINGS) {
            R_xlen_t m = 0;
            for (int r = 0; r < c->count; r++) {
                const run_window_t *w = &c->runs[r];
                memcpy(c->buffer + m, w->x + w->lo, (size_t)(w->hi - w->lo) * sizeof(double));
                m += w->hi - w->lo;
            }
            return select_kth(c->buffer, m, k - below);
        }
        double position = ((double)(k - below) + 0.5) / (double)active;
        int g = 0;
        for (int r = 0; r < c->count; r++) {
            const run_window_t *w = &c->runs[r];
            if (w->hi > w->lo) c->guesses[g++] = w->x[w->lo + (int)(position * (w->hi - w->lo))];
        }
        double pivot = select_kth(c->guesses, g, g / 2);
        R_xlen_t less = below, not_more = below;
        for (int r = 0; r < c->count; r++) {
            const run_window_t *w = &c->runs[r];
            c->less[r] = first_above(w->x, w->lo, w->hi, pivot, 1);
            c->not_more[r] = first_above(w->x, c->less[r], w->hi, pivot, 0);
            less += c->less[r] - w->lo;
            not_more += c->not_more[r] - w->lo;
        }
        if (less <= k && k < not_more) return pivot;
        if (k < less) {
            for (int r = 0; r < c->count; r++) c->runs[r].hi = c->less[r];
        } else {
            for (int r = 0; r < c->count; r++) c->runs[r].lo = c->not_more[r];
            below = not_more;
        }
    }
}

/* The (k + 1)-th smallest, given the k-th, a: a again where it occurs
 * more than k + 1 times from the bottom, else the smallest time above it. */
static double next_of_runs(const cell_runs_t *c, R_xlen_t k, double a) {
    R_xlen_t not_more = 0;
    double next = R_PosInf;
    for (int r = 0; r < c->count; r++) {
        const run_window_t *w = &c->runs[r];
        int above = first_above(w->x, 0, w->n, a, 0);
        not_more += above;
        if (above < w->n && w->x[above] < next) next = w->x[above];
    }
    return k + 1 < not_more ? a : next;
}

/* The percentiles of the cell's N times, ascending percents. */
static void percentiles_of(cell_runs_t *c, R_xlen_t n, double *out) {
    for (int p = 0; p < N_PERCENTS; p++) {
        if (n < 1) {
            out[p] = NA_REAL;
            continue;
        }
        double v = (double)(n - 1) * (PERCENTS[p] / 100);
        if (v >= (double)(n - 1)) {
            double largest = R_NegInf;
            for (int r = 0; r < c->count; r++) {
                const run_window_t *w = &c->runs[r];
                if (w->n > 0 && w->x[w->n - 1] > largest) largest = w->x[w->n - 1];
            }
            out[p] = largest;
            continue;
        }
        R_xlen_t i = (R_xlen_t)floor(v);
        double a = kth_of_runs(c, i), b = next_of_runs(c, i, a);
        out[p] = percentile_linear(a, b, v - (double)i);
    }
}

typedef struct {
    SEXP values, at, n, below, kept, rows, out;
    scratch_t scratch;
} percentiles_call_t;

static SEXP cell_percentiles_call(void *data) {
    percentiles_call_t *call = data;
    R_xlen_t size, n_rows = XLENGTH(call->at), cells = XLENGTH(call->rows);
    const double *values = stored_values(call->values, &size), *at = REAL(call->at);
    const int *n = INTEGER(call->n), *below = INTEGER(call->below), *kept = INTEGER(call->kept);
    const int *rows = INTEGER(call->rows);
    R_xlen_t most = 0, r = 0;
    int most_rows = 0;
    for (R_xlen_t c = 0; c < cells; c++) {
        R_xlen_t total = 0;
        for (int k = 0; k < rows[c]; k++, r++) {
            if (r >= n_rows || n[r] < 0 || !(at[r] >= 0 && at[r] + n[r] <= (double)size) || below[r] < 0 ||
                kept[r] < 0 || below[r] + kept[r] > n[r]) {
                error("nbh_cell_percentiles: row %.0f is outside the values", (double)r + 1);
            }
            total += n[r];
        }
        most = total > most ? total : most;
        most_rows = rows[c] > most_rows ? rows[c] : most_rows;
    }
    if (r != n_rows) error("nbh_cell_percentiles: the cells have %.0f rows, not %.0f", (double)r, (double)n_rows);
    cell_runs_t runs = {scratch_alloc_dirty(&call->scratch, (size_t)most_rows + 1, sizeof(run_window_t)), 0,
                        scratch_alloc_dirty(&call->scratch, (size_t)most_rows + 1, sizeof(int)),
                        scratch_alloc_dirty(&call->scratch, (size_t)most_rows + 1, sizeof(int)),
                        scratch_alloc_dirty(&call->scratch, (size_t)most_rows + 1, sizeof(double)),
                        scratch_alloc_dirty(&call->scratch, (size_t)most + 1, sizeof(double))};
    double *columns[2 * N_PERCENTS];
    int *counts[2];
    for (int j = 0; j < 2; j++) {
        counts[j] = INTEGER(SET_VECTOR_ELT(call->out, j * (N_PERCENTS + 1), allocVector(INTSXP, cells)));
        for (int p = 0; p < N_PERCENTS; p++) {
            columns[j * N_PERCENTS + p] =
                REAL(SET_VECTOR_ELT(call->out, j * (N_PERCENTS + 1) + 1 + p, allocVector(REALSXP, cells)));
        }
    }
    r = 0;
    for (R_xlen_t c = 0; c < cells; r += rows[c++]) {
        for (int j = 0; j < 2; j++) {   /* 0: every repetition; 1: those the Tukey filter kept */
            R_xlen_t count = 0;
            runs.count = rows[c];
            for (int k = 0; k < rows[c]; k++) {
                R_xlen_t from = (R_xlen_t)at[r + k] + (j ? below[r + k] : 0);
                runs.runs[k].x = values + from;
                runs.runs[k].n = j ? kept[r + k] : n[r + k];
                count += runs.runs[k].n;
            }
            double out[N_PERCENTS];
            percentiles_of(&runs, count, out);
            counts[j][c] = (int)count;
            for (int p = 0; p < N_PERCENTS; p++) columns[j * N_PERCENTS + p][c] = out[p];
        }
    }
    return call->out;
}

SEXP nbh_cell_percentiles(SEXP values, SEXP at, SEXP n, SEXP below, SEXP kept, SEXP rows) {
    R_xlen_t len = XLENGTH(at);
    if (!isReal(at) || !isInteger(n) || !isInteger(below) || !isInteger(kept) || !isInteger(rows) ||
        XLENGTH(n) != len || XLENGTH(below) != len || XLENGTH(kept) != len) {
        error("nbh_cell_percentiles: at (double), n, below, kept (integer, as long) and rows (integer) expected");
    }
    SEXP out = PROTECT(allocVector(VECSXP, 2 * (N_PERCENTS + 1)));
    const char *names[] = {"count", "p50", "p90", "p99", "count_kept", "p50_kept", "p90_kept", "p99_kept"};
    SEXP out_names = PROTECT(allocVector(STRSXP, 2 * (N_PERCENTS + 1)));
    for (int k = 0; k < 2 * (N_PERCENTS + 1); k++) SET_STRING_ELT(out_names, k, mkChar(names[k]));
    setAttrib(out, R_NamesSymbol, out_names);
    percentiles_call_t call = {values, at, n, below, kept, rows, out, {{0}, 0}};
    with_scratch(cell_percentiles_call, &call, &call.scratch);
    UNPROTECT(2);
    return out;
}
