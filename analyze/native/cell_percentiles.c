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
 * pivot's rank is a search per run from where the pivot is expected
 * (kth_of_runs), and only the few times a handful of pivots leave are
 * gathered and selected (Wirth's) -- not every time of the cell copied
 * and selected. The next order statistic, which the interpolation needs,
 * comes from what the last pivot or the selection left. A cell's times lie
 * in some 30 places of the store, far apart: the next cell's are
 * prefetched while this one is worked on.
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

/* ---- order statistics of a cell: the union of its runs' sorted times ---- */

/* A run's candidates: its sorted times x[lo..hi-1]. */
typedef struct {
    const double *x;
    int lo, hi, n;      /* the window, and the run's whole length */
} run_window_t;

/* Whether x lies below the pivot p: x < p (at_least), or x <= p. */
static inline int below_pivot(double x, double p, int at_least) {
    return at_least ? x < p : x <= p;
}

/* The first i in lo..hi-1 with x[i] > p (strictly, or >= p when `at_least`),
 * else hi, searched from `from` (lo <= from <= hi) outwards in doubling
 * steps, then by halving: a few steps where the answer is near `from`,
 * as it is for a pivot taken from the runs' values at the target's
 * relative position. */
static int first_above(const double *x, int lo, int hi, int from, double p, int at_least) {
    if (from < hi && below_pivot(x[from], p, at_least)) {   /* the answer is right of from */
        int step = 1;
        lo = from + 1;
        while (lo + step <= hi && below_pivot(x[lo + step - 1], p, at_least)) {
            lo += step;
            step *= 2;
        }
        if (lo + step <= hi) hi = lo + step - 1;   /* x[hi] is not below: the answer is in lo..hi */
    } else {   /* the answer is at from or left of it */
        int step = 1;
        hi = from;
        while (hi - step >= lo && !below_pivot(x[hi - step], p, at_least)) {
            hi -= step;
            step *= 2;
        }
        if (hi - step >= lo) lo = hi - step + 1;   /* x[lo - 1] is below */
    }
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (below_pivot(x[mid], p, at_least)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

#define GATHERED 64     /* candidates few enough to gather and select */
#define NARROWINGS 8    /* at most this many pivots; then whatever is left is gathered */

typedef struct {
    run_window_t *runs;
    int count;                          /* runs of the cell */
    int *less, *not_more;               /* count each: a pivot's position in each window */
    int *from;                          /* count: where each run's guess was */
    double *guesses, *buffer;           /* count; the cell's values */
} cell_runs_t;

/* The smallest time of the runs at or after position `from[r]` of each run
 * (the first time above a pivot, or above a window), +Inf if none. */
static double smallest_after(const cell_runs_t *c, const int *from) {
    double next = R_PosInf;
    for (int r = 0; r < c->count; r++) {
        const run_window_t *w = &c->runs[r];
        if (from[r] < w->n && w->x[from[r]] < next) next = w->x[from[r]];
    }
    return next;
}

/* The k-th and (k + 1)-th smallest (0-based) of the union of the runs'
 * sorted times, into a and b (b = +Inf if k is the last). Each run's times
 * are sorted, so a pivot's rank is a search per run: the pivot is the
 * median of the runs' values at the target's relative position in their
 * windows (times of one cell: the runs' quantiles are close to the
 * union's), its position in each run searched from there, and each pivot
 * leaves the windows on the target's side of it. What is left after a few
 * pivots is gathered and selected. The same order statistics as selecting
 * among all the times gathered. */
static void kth_of_runs(cell_runs_t *c, R_xlen_t k, double *a, double *b) {
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
                c->from[r] = w->hi;
            }
            R_xlen_t j = k - below;
            *a = select_wirth(c->buffer, m, j);
            if (j + 1 < m) {   /* the larger ones follow the k-th; every time beyond the windows is larger still */
                double next = c->buffer[j + 1];
                for (R_xlen_t i = j + 2; i < m; i++) next = c->buffer[i] < next ? c->buffer[i] : next;
                *b = next;
            } else {
                *b = smallest_after(c, c->from);
            }
            return;
        }
        double position = ((double)(k - below) + 0.5) / (double)active;
        int g = 0;
        for (int r = 0; r < c->count; r++) {
            const run_window_t *w = &c->runs[r];
            c->from[r] = w->lo + (int)(position * (w->hi - w->lo));
            if (w->hi > w->lo) c->guesses[g++] = w->x[c->from[r]];
        }
        double pivot = select_wirth(c->guesses, g, g / 2);
        R_xlen_t less = below, not_more = below;
        for (int r = 0; r < c->count; r++) {
            const run_window_t *w = &c->runs[r];
            c->less[r] = first_above(w->x, w->lo, w->hi, c->from[r], pivot, 1);
            c->not_more[r] = first_above(w->x, c->less[r], w->hi, c->less[r], pivot, 0);
            less += c->less[r] - w->lo;
            not_more += c->not_more[r] - w->lo;
        }
        if (less <= k && k < not_more) {   /* the pivot is the k-th; the next is it again, or the next time above it */
            *a = pivot;
            *b = k + 1 < not_more ? pivot : smallest_after(c, c->not_more);
            return;
        }
        if (k < less) {
            for (int r = 0; r < c->count; r++) c->runs[r].hi = c->less[r];
        } else {
            for (int r = 0; r < c->count; r++) c->runs[r].lo = c->not_more[r];
            below = not_more;
        }
    }
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
        double a, b;
        kth_of_runs(c, i, &a, &b);
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
        if (c + 1 < cells) {   /* the next cell's times, from 30 or so places of the store, on their way */
            R_xlen_t next = r + rows[c];
            for (int k = 0; k < rows[c + 1]; k++) {
                const char *from = (const char *)(values + (R_xlen_t)at[next + k]);
                const char *to = (const char *)(values + (R_xlen_t)at[next + k] + n[next + k]);
                for (; from < to; from += 64) __builtin_prefetch(from);
            }
        }
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
