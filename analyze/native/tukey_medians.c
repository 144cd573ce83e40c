/* The run medians of one run in one pass (SPEC 5, step 1; the same values,
 * bit for bit, as analyze/reduce/tukey_filter.R's tukey_medians_sorted): the rows
 * are bucketed by experiment id (counting sort), each bucket's times sorted,
 * its quartiles (type 7) and Tukey bounds taken, and the median of the times
 * within the bounds. A grouped selection instead of R's full (id, seconds)
 * sort of the run's rows: the analysis's largest cost after reading.
 *
 * The same pass gives what the tail latencies need (cell_percentiles.c):
 * each id's 90th and 99th percentile of all its times (numpy's "linear",
 * as percentile_of_sorted computes it: the run's value for an assessment
 * with `statistic = p90` or `p99`), and its sorted times themselves, with
 * where the kept ones begin.
 *
 * .Call("nbh_tukey_medians", id, seconds, store, offset): id integer >= 0,
 * seconds double, no NA; store a value store (value_store.c) or NULL.
 * Returns list(id, median, n, p90, p99, below, start, values): per id
 * present, ascending, the median of the n times kept, the percentiles of
 * all its times, and where its sorted times are: from position start
 * (0-based) of the run's region of the store, which begins at offset, or
 * of values (the run's sorted times, returned when store is NULL); the
 * kept ones from position start + below. results_file.c calls
 * run_medians_of on the rows it reads.
 *
 * .Call("nbh_round_medians", id, round, seconds): the same median of every
 * (id, round) group (the rounds of an interleaved run, SPEC 7.6: each
 * round's Tukey median is one side of a paired comparison), as
 * list(id, round, median, n), ascending; round_medians_tukey in
 * analyze/reduce/tukey_filter.R is the reference. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "nbh_analyze.h"

/* Quantile type 7 of the sorted s[0..n-1], as stats::quantile and
 * quantile7_sorted compute it (h = (n - 1) p + 1, interpolated only between
 * different order statistics). */
static double quantile7(const double *s, int n, double p) {
    double index = 1.0 + (double)(n - 1) * p;
    double lo = floor(index), hi = ceil(index);
    double q = s[(R_xlen_t)lo - 1], x_hi = s[(R_xlen_t)hi - 1];
    if (index > lo && x_hi != q) {
        double h = index - lo;
        q = (1 - h) * q + h * x_hi;
    }
    return q;
}

/* The median of the sorted s[0..n-1] within its Tukey bounds, and how many
 * values that is (kept) and how many lie below them (below). */
static double tukey_median(const double *s, int n, int *kept_out, int *below_out) {
    double q1 = quantile7(s, n, 0.25), q3 = quantile7(s, n, 0.75), iqr = q3 - q1;
    double lower = q1 - 1.5 * iqr, upper = q3 + 1.5 * iqr;
    int below = 0, kept = n;
    while (below < n && s[below] < lower) below++;
    while (kept > below && s[kept - 1] > upper) kept--;
    kept -= below;
    *kept_out = kept;
    *below_out = below;
    return kept ? (s[below + (kept + 1) / 2 - 1] + s[below + kept / 2]) / 2 : NA_REAL;
}

static void insertion_sort(double *s, int n) {
    for (int i = 1; i < n; i++) {
        double v = s[i];
        int j = i;
        for (; j > 0 && s[j - 1] > v; j--) s[j] = s[j - 1];
        s[j] = v;
    }
}

#define BUCKETED_MIN 16     /* fewer times: insertion sort alone */
#define BUCKETED_MAX 1024   /* more: R's sort */

/* The usual group is nrep = 10..100 times of one experiment, close to each
 * other, some with a few slow outliers. Insertion sort moves each time
 * past every larger one before it (n^2 / 4 moves); spread first into n
 * buckets by value, the times are nearly in order and insertion sort moves
 * each a step or two. The buckets span the times from the smallest to the
 * largest; where that range is much wider than three of the times suggest
 * (outliers, which would crowd the rest into a few buckets), they span the
 * bulk instead (a sample's 2nd to 7th of 8, widened), and the outliers go
 * to the end buckets. Whatever the values, the insertion sort that follows
 * makes the order right; bucketing only makes it cheap. */
void sort_times(double *s, int n) {
    if (n < BUCKETED_MIN) {
        insertion_sort(s, n);
        return;
    }
    if (n > BUCKETED_MAX) {
        R_rsort(s, n);
        return;
    }
    double lo = s[0], hi = s[0];
    for (int i = 1; i < n; i++) {
        lo = s[i] < lo ? s[i] : lo;
        hi = s[i] > hi ? s[i] : hi;
    }
    if (!(hi > lo) || !isfinite(hi - lo)) {   /* all equal, or an infinite (or NaN) time: no value scale */
        insertion_sort(s, n);
        return;
    }
    double first = s[n / 4], second = s[n / 2], third = s[3 * n / 4];
    double three = fmax(fmax(first, second), third) - fmin(fmin(first, second), third);
    if (hi - lo > 8 * three) {
        double sample[8];
        for (int i = 0; i < 8; i++) sample[i] = s[i * (n - 1) / 7];
        insertion_sort(sample, 8);
        double bulk = sample[6] - sample[1], middle = (sample[6] + sample[1]) / 2;
        if (bulk > 0) {
            lo = fmax(lo, middle - 1.5 * bulk);
            hi = fmin(hi, middle + 1.5 * bulk);
        }
    }
    double scale = (double)(n - 1) / (hi - lo);
    unsigned short bucket[BUCKETED_MAX];
    int next[BUCKETED_MAX + 1];
    double spread[BUCKETED_MAX];
    memset(next, 0, (size_t)(n + 1) * sizeof(int));
    for (int i = 0; i < n; i++) {
        double x = (s[i] - lo) * scale;
        int b = !(x > 0) ? 0 : x >= n - 1 ? n - 1 : (int)x;   /* NaN: bucket 0 */
        bucket[i] = (unsigned short)b;
        next[b + 1]++;
    }
    for (int b = 0; b < n; b++) next[b + 1] += next[b];
    for (int i = 0; i < n; i++) spread[next[bucket[i]]++] = s[i];
    memcpy(s, spread, (size_t)n * sizeof(double));
    insertion_sort(s, n);
}

typedef struct {
    SEXP id, seconds, store, offset;
    scratch_t scratch;
} tukey_call_t;

static SEXP tukey_medians_call(void *data) {
    tukey_call_t *call = data;
    R_xlen_t rows = XLENGTH(call->id);
    const int *id = INTEGER(call->id);
    int max_id = -1;
    for (R_xlen_t i = 0; i < rows; i++) {
        if (id[i] == NA_INTEGER || id[i] < 0) error("nbh_tukey_medians: id %d is not an experiment id", id[i]);
        if (id[i] > max_id) max_id = id[i];
    }
    if (max_id < 0) max_id = 0;   /* no rows: one empty bucket, no groups */
    R_xlen_t *rows_of_id = scratch_alloc(&call->scratch, (size_t)max_id + 1, sizeof(R_xlen_t));
    for (R_xlen_t i = 0; i < rows; i++) rows_of_id[id[i]]++;
    double *sorted = store_region(call->store, call->offset, rows);
    return run_medians_of(id, REAL(call->seconds), rows, max_id, rows_of_id, sorted, &call->scratch);
}

SEXP nbh_tukey_medians(SEXP id_, SEXP seconds_, SEXP store_, SEXP offset_) {
    if (!isInteger(id_) || !isReal(seconds_) || XLENGTH(id_) != XLENGTH(seconds_)) {
        error("nbh_tukey_medians: id (integer) and seconds (double) of the same length expected");
    }
    tukey_call_t call = {id_, seconds_, store_, offset_, {{0}, 0}};
    return with_scratch(tukey_medians_call, &call, &call.scratch);
}

void group_by_id(const int *id, const double *seconds, R_xlen_t rows, int max_id, const R_xlen_t *rows_of_id,
                 double *grouped, R_xlen_t *next) {
    /* Bucket k holds the times of id k: grouped[start[k] .. start[k + 1] - 1]. */
    next[0] = 0;
    for (int k = 0; k < max_id; k++) next[k + 1] = next[k] + rows_of_id[k];
    for (R_xlen_t i = 0; i < rows; i++) grouped[next[id[i]]++] = seconds[i];
}

SEXP run_medians_of(const int *id, const double *seconds, R_xlen_t rows, int max_id,
                    const R_xlen_t *rows_of_id, double *sorted, scratch_t *scratch) {
    SEXP values = R_NilValue;
    if (!sorted) sorted = REAL(values = PROTECT(allocVector(REALSXP, rows)));
    group_by_id(id, seconds, rows, max_id, rows_of_id, sorted,
                scratch_alloc_dirty(scratch, (size_t)max_id + 1, sizeof(R_xlen_t)));
    SEXP out = grouped_run_medians(sorted, values, rows, max_id, rows_of_id);
    if (!isNull(values)) UNPROTECT(1);
    return out;
}

int groups_of(const R_xlen_t *rows_of_id, int max_id) {
    int groups = 0;
    for (int k = 0; k <= max_id; k++) groups += rows_of_id[k] > 0;
    return groups;
}

void medians_of_groups(double *grouped, int max_id, const R_xlen_t *rows_of_id, run_medians_t out) {
    int g = 0;
    R_xlen_t start = 0;
    for (int k = 0; k <= max_id; k++) {
        int n = (int)rows_of_id[k];
        if (!n) continue;
        double *s = grouped + start;
        sort_times(s, n);
        int below, kept;
        out.median[g] = tukey_median(s, n, &kept, &below);
        out.id[g] = k;
        out.n[g] = kept;
        out.p90[g] = percentile_of_sorted(s, n, 90);
        out.p99[g] = percentile_of_sorted(s, n, 99);
        out.below[g] = below;
        out.start[g] = (int)start;
        start += n;
        g++;
    }
}

SEXP run_medians_list(int groups, SEXP values, run_medians_t *fields) {
    const char *names[] = {"id", "median", "n", "p90", "p99", "below", "start", "values", ""};
    enum { ID, MEDIAN, N, P90, P99, BELOW, START, VALUES };
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    SET_VECTOR_ELT(out, VALUES, values);
    fields->id = INTEGER(SET_VECTOR_ELT(out, ID, allocVector(INTSXP, groups)));
    fields->median = REAL(SET_VECTOR_ELT(out, MEDIAN, allocVector(REALSXP, groups)));
    fields->n = INTEGER(SET_VECTOR_ELT(out, N, allocVector(INTSXP, groups)));
    fields->p90 = REAL(SET_VECTOR_ELT(out, P90, allocVector(REALSXP, groups)));
    fields->p99 = REAL(SET_VECTOR_ELT(out, P99, allocVector(REALSXP, groups)));
    fields->below = INTEGER(SET_VECTOR_ELT(out, BELOW, allocVector(INTSXP, groups)));
    fields->start = INTEGER(SET_VECTOR_ELT(out, START, allocVector(INTSXP, groups)));
    UNPROTECT(1);
    return out;
}

SEXP grouped_run_medians(double *grouped, SEXP values, R_xlen_t rows, int max_id, const R_xlen_t *rows_of_id) {
    if (rows > INT_MAX) error("nbh_tukey_medians: a run of more than %d rows", INT_MAX);
    run_medians_t fields;
    SEXP out = PROTECT(run_medians_list(groups_of(rows_of_id, max_id), values, &fields));
    medians_of_groups(grouped, max_id, rows_of_id, fields);
    UNPROTECT(1);
    return out;
}

/* Sorting networks for 2..8 values (Knuth, TAOCP 5.3.4, optimal for
 * these sizes): comparators in a fixed order that never branch on the
 * values, where insertion sort mispredicts at almost every step among a
 * round's few random times. For positive finite times only: their bits,
 * read as integers, order as their values do (so the compiler's integer
 * conditional moves, where it branches on doubles), and any sort gives
 * the same array. */
#define FEW 8
static const unsigned char NETWORK[FEW + 1][19][2] = {
    {{0}},
    {{0}},
    {{0, 1}},
    {{1, 2}, {0, 2}, {0, 1}},
    {{0, 1}, {2, 3}, {0, 2}, {1, 3}, {1, 2}},
    {{0, 1}, {3, 4}, {2, 4}, {2, 3}, {0, 3}, {0, 2}, {1, 4}, {1, 3}, {1, 2}},
    {{1, 2}, {4, 5}, {0, 2}, {3, 5}, {0, 1}, {3, 4}, {2, 5}, {0, 3}, {1, 4}, {2, 4}, {1, 3}, {2, 3}},
    {{1, 2}, {3, 4}, {5, 6}, {0, 2}, {3, 5}, {4, 6}, {0, 1}, {4, 5}, {2, 6}, {0, 4}, {1, 5}, {0, 3}, {2, 5}, {1, 3},
     {2, 4}, {2, 3}},
    {{0, 1}, {2, 3}, {4, 5}, {6, 7}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {1, 2}, {5, 6}, {0, 4}, {3, 7}, {1, 5}, {2, 6},
     {1, 4}, {3, 6}, {2, 4}, {3, 5}, {3, 4}}};
static const int NETWORK_SIZE[FEW + 1] = {0, 0, 1, 3, 5, 9, 12, 16, 19};

static void sort_finite_times(double *s, int n) {
    if (n > FEW) {
        sort_times(s, n);
        return;
    }
    uint64_t bits[FEW];
    memcpy(bits, s, (size_t)n * sizeof *s);
    for (int c = 0; c < NETWORK_SIZE[n]; c++) {
        int i = NETWORK[n][c][0], j = NETWORK[n][c][1];
        uint64_t a = bits[i], b = bits[j];
        bits[i] = b < a ? b : a;
        bits[j] = b < a ? a : b;
    }
    memcpy(s, bits, (size_t)n * sizeof *s);
}

void round_medians_in_slots(const int *id, const int *round, const double *seconds, R_xlen_t rows,
                            const R_xlen_t *first_slot, R_xlen_t slots, const R_xlen_t *rows_of_slot, double *grouped,
                            double *median, int *kept, R_xlen_t *next) {
    next[0] = 0;
    for (R_xlen_t s = 0; s < slots; s++) next[s + 1] = next[s] + rows_of_slot[s];
    for (R_xlen_t i = 0; i < rows; i++) grouped[next[first_slot[id[i]] + round[i] - 1]++] = seconds[i];
    double *group = grouped;
    for (R_xlen_t s = 0; s < slots; s++) {
        int n = (int)rows_of_slot[s], below, k = 0;
        sort_finite_times(group, n);   /* a clean file's times are positive */
        median[s] = n ? tukey_median(group, n, &k, &below) : NA_REAL;
        if (kept) kept[s] = k;
        group += n;
    }
}

typedef struct {
    int round;
    double value;
} round_value_t;

static int by_round_then_value(const void *a, const void *b) {
    const round_value_t *x = a, *y = b;
    if (x->round != y->round) return (x->round > y->round) - (x->round < y->round);
    return (x->value > y->value) - (x->value < y->value);
}

/* An experiment's rows by round, then time: a run measures its rounds one
 * after the other, so the rows come nearly in order and an insertion sort
 * moves each time only within its round; qsort for the rare long group. */
static void sort_by_round_then_value(round_value_t *b, R_xlen_t size) {
    if (size > 128) {
        qsort(b, (size_t)size, sizeof(*b), by_round_then_value);
        return;
    }
    for (R_xlen_t i = 1; i < size; i++) {
        round_value_t v = b[i];
        R_xlen_t j = i;
        for (; j > 0 && (b[j - 1].round > v.round || (b[j - 1].round == v.round && b[j - 1].value > v.value)); j--) {
            b[j] = b[j - 1];
        }
        b[j] = v;
    }
}

SEXP round_medians_of(const int *id, const int *round, const double *seconds, R_xlen_t rows, int max_id,
                      const R_xlen_t *rows_of_id, scratch_t *scratch) {
    R_xlen_t *start = scratch_alloc(scratch, (size_t)max_id + 2, sizeof(R_xlen_t));
    for (int k = 0; k <= max_id; k++) start[k + 1] = start[k] + rows_of_id[k];
    round_value_t *bucket = scratch_alloc_dirty(scratch, (size_t)rows + 1, sizeof(round_value_t));
    R_xlen_t *next = scratch_alloc(scratch, (size_t)max_id + 1, sizeof(R_xlen_t));
    memcpy(next, start, ((size_t)max_id + 1) * sizeof(R_xlen_t));
    for (R_xlen_t i = 0; i < rows; i++) bucket[next[id[i]]++] = (round_value_t){round[i], seconds[i]};
    R_xlen_t groups = 0;
    for (int k = 0; k <= max_id; k++) {
        round_value_t *b = bucket + start[k];
        R_xlen_t size = start[k + 1] - start[k];
        sort_by_round_then_value(b, size);
        for (R_xlen_t i = 0; i < size; i++) groups += i == 0 || b[i].round != b[i - 1].round;
    }
    const char *names[] = {"id", "round", "median", "n"};
    enum { ID, ROUND, MEDIAN, N, FIELDS };
    SEXP out = PROTECT(allocVector(VECSXP, FIELDS));
    int *out_id = INTEGER(SET_VECTOR_ELT(out, ID, allocVector(INTSXP, groups)));
    int *out_round = INTEGER(SET_VECTOR_ELT(out, ROUND, allocVector(INTSXP, groups)));
    double *out_median = REAL(SET_VECTOR_ELT(out, MEDIAN, allocVector(REALSXP, groups)));
    int *out_n = INTEGER(SET_VECTOR_ELT(out, N, allocVector(INTSXP, groups)));
    double *values = scratch_alloc_dirty(scratch, (size_t)rows + 1, sizeof(double));
    R_xlen_t g = 0;
    for (int k = 0; k <= max_id; k++) {
        round_value_t *b = bucket + start[k];
        R_xlen_t size = start[k + 1] - start[k];
        for (R_xlen_t i = 0; i < size;) {
            R_xlen_t j = i;
            while (j < size && b[j].round == b[i].round) {
                values[j - i] = b[j].value;
                j++;
            }
            int kept, below;
            out_median[g] = tukey_median(values, (int)(j - i), &kept, &below);
            out_id[g] = k;
            out_round[g] = b[i].round;
            out_n[g] = kept;
            g++;
            i = j;
        }
    }
    SEXP out_names = PROTECT(allocVector(STRSXP, FIELDS));
    for (int f = 0; f < FIELDS; f++) SET_STRING_ELT(out_names, f, mkChar(names[f]));
    setAttrib(out, R_NamesSymbol, out_names);
    UNPROTECT(2);
    return out;
}

typedef struct {
    SEXP id, round, seconds;
    scratch_t scratch;
} round_call_t;

static SEXP round_medians_call(void *data) {
    round_call_t *call = data;
    R_xlen_t rows = XLENGTH(call->id);
    const int *id = INTEGER(call->id), *round = INTEGER(call->round);
    int max_id = 0;
    for (R_xlen_t i = 0; i < rows; i++) {
        if (id[i] == NA_INTEGER || id[i] < 0) error("nbh_round_medians: id %d is not an experiment id", id[i]);
        if (round[i] == NA_INTEGER || round[i] < 0) error("nbh_round_medians: round %d is not a round", round[i]);
        if (id[i] > max_id) max_id = id[i];
    }
    R_xlen_t *rows_of_id = scratch_alloc(&call->scratch, (size_t)max_id + 1, sizeof(R_xlen_t));
    for (R_xlen_t i = 0; i < rows; i++) rows_of_id[id[i]]++;
    return round_medians_of(id, round, REAL(call->seconds), rows, max_id, rows_of_id, &call->scratch);
}

SEXP nbh_round_medians(SEXP id_, SEXP round_, SEXP seconds_) {
    if (!isInteger(id_) || !isInteger(round_) || !isReal(seconds_) || XLENGTH(id_) != XLENGTH(seconds_) ||
        XLENGTH(round_) != XLENGTH(id_)) {
        error("nbh_round_medians: id, round (integer) and seconds (double) of the same length expected");
    }
    round_call_t call = {id_, round_, seconds_, {{0}, 0}};
    return with_scratch(round_medians_call, &call, &call.scratch);
}
