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
 * g >= 0.5 (numpy's _lerp). The two order statistics are found by
 * selection (Wirth's), not by sorting the cell's values.
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

/* The percentiles of x[0..n-1] (any order; rearranged), ascending percents. */
static void percentiles_of(double *x, R_xlen_t n, double *out) {
    R_xlen_t done = 0;   /* x[done..n-1] hold the order statistics from `done` on */
    for (int p = 0; p < N_PERCENTS; p++) {
        if (n < 1) {
            out[p] = NA_REAL;
            continue;
        }
        double v = (double)(n - 1) * (PERCENTS[p] / 100);
        if (v >= (double)(n - 1)) {
            double largest = x[done];
            for (R_xlen_t k = done + 1; k < n; k++) largest = x[k] > largest ? x[k] : largest;
            out[p] = largest;
            continue;
        }
        R_xlen_t i = (R_xlen_t)floor(v);
        double a = select_kth(x + done, n - done, i - done), b = x[i + 1];
        for (R_xlen_t k = i + 2; k < n; k++) b = x[k] < b ? x[k] : b;
        out[p] = percentile_linear(a, b, v - (double)i);
        done = i;
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
    }
    if (r != n_rows) error("nbh_cell_percentiles: the cells have %.0f rows, not %.0f", (double)r, (double)n_rows);
    double *buffer = scratch_alloc_dirty(&call->scratch, (size_t)most, sizeof(double));
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
            for (int k = 0; k < rows[c]; k++) {
                R_xlen_t from = (R_xlen_t)at[r + k] + (j ? below[r + k] : 0), length = j ? kept[r + k] : n[r + k];
                memcpy(buffer + count, values + from, (size_t)length * sizeof(double));
                count += length;
            }
            double out[N_PERCENTS];
            percentiles_of(buffer, count, out);
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
