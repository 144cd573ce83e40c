/* The run medians of one results file, read in C: read_results (analyze/
 * read_results.R) and then tukey_medians, in one pass over the bytes
 * instead of fread's table and R's checks. For a clean file, which is what
 * the kernel writes; anything else gives NULL, and R reads that file with
 * read_results, whose warnings say what is wrong with it.
 *
 * Clean (docs/archive.md, results/RUN.results.csv): the header
 * id,rep,round,seconds,work_seconds[,delay_seconds] (or, from kernels
 * before the interleaved rounds, id,rep,seconds[,work_seconds
 * [,delay_seconds]]), then at least one line, each ending in '\n': an
 * experiment id, a repetition and its round (digits), the time (a positive
 * decimal number: digits, an optional fraction, an optional exponent) and
 * the busy work's time and the arrival delay (such numbers, or zero).
 * Every id is an experiment of the archive (nrep_of_id > 0) and has
 * exactly nrep rows, in every round 1..blocks its share (kernel/rounds.c). A sign, NaN, Inf or text in
 * any time is not clean: read_results drops that row with a warning.
 *
 * A time is the double nearest its decimal, as strtod gives it: the
 * digits as an integer, times or divided by an exact power of ten (one
 * rounding; Clinger's fast path), or strtod itself where that is not exact.
 * fread rounds through long double instead, so that a time may differ from
 * fread's in its last bit (a relative 1e-16).
 *
 * .Call("nbh_read_run_medians", file, nrep_of_id, blocks_of_id, store,
 * offset, round_offset): file a path; element k + 1 of nrep_of_id (integer)
 * the nrep of experiment id k, 0 where there is none, and of blocks_of_id
 * its rounds (1 for archives before the interleaved rounds); store and
 * offset where the sorted times go. Returns what nbh_tukey_medians returns,
 * with "rounds", for a file with a round column: what nbh_round_medians
 * returns, or TRUE where they went to the store instead (round_offset a
 * number, the store not NULL): from round_offset one round median per slot
 * of the archive, every experiment id k with nrep > 0 in order, each its
 * rounds 1..blocks (NA where the run has none); NULL without a round
 * column. NULL for a file that is not clean. */
#include <float.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include "nbh_analyze.h"

#ifndef MAP_POPULATE
#define MAP_POPULATE 0   /* Linux: map every page at once, not one fault at a time; elsewhere the faults */
#endif

static const double POWERS_OF_TEN[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                       1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
#define EXACT_POWER 22                     /* 10^22 is the largest power of ten a double holds exactly */
#define EXACT_INTEGER (UINT64_C(1) << 53)  /* and 2^53 the largest integer with all below it */

static int is_digit(char c) { return (unsigned char)(c - '0') < 10; }

/* Digits at p, at most 9 (an int). Returns the end, or NULL. */
static const char *parse_count(const char *p, int *value) {
    int v = 0, digits = 0;
    for (; is_digit(*p); p++) {
        if (++digits > 9) return NULL;
        v = 10 * v + (*p - '0');
    }
    if (!digits) return NULL;
    *value = v;
    return p;
}

/* The 8 digits at p as an integer, or -1 if they are not all digits: eight
 * bytes at once (SWAR), as simdjson parses them, on a little-endian CPU. */
static inline int64_t eight_digits(const char *p) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t v;
    memcpy(&v, p, sizeof v);
    if (((v & 0xF0F0F0F0F0F0F0F0u) | (((v + 0x0606060606060606u) & 0xF0F0F0F0F0F0F0F0u) >> 4)) !=
        0x3333333333333333u) {
        return -1;   /* a byte outside '0'..'9' */
    }
    v -= 0x3030303030303030u;
    v = v * 10 + (v >> 8);
    v = ((v & 0x000000FF000000FFu) * (100 + (UINT64_C(1000000) << 32)) +
         ((v >> 16) & 0x000000FF000000FFu) * (1 + (UINT64_C(10000) << 32))) >> 32;
    return (int64_t)v;
#else
    int64_t v = 0;
    for (int i = 0; i < 8; i++) {
        if (!is_digit(p[i])) return -1;
        v = 10 * v + (p[i] - '0');
    }
    return v;
#endif
}

/* The kernel's "%.9e" at p (d.ddddddddde-dd, or e+dd), as parse_decimal
 * reads it, in a few steps; NULL for any other text, or fewer than 16
 * bytes before end. */
static inline const char *parse_kernel_format(const char *p, const char *end, double *value) {
    if (end - p < 16 || !is_digit(p[0]) || p[1] != '.' || !is_digit(p[10])) return NULL;
    int64_t middle = eight_digits(p + 2);
    if (middle < 0 || p[11] != 'e' || (p[12] != '-' && p[12] != '+') || !is_digit(p[13]) || !is_digit(p[14]) ||
        is_digit(p[15])) {
        return NULL;
    }
    uint64_t mantissa = (uint64_t)(p[0] - '0') * 1000000000u + (uint64_t)middle * 10 + (uint64_t)(p[10] - '0');
    int power = 10 * (p[13] - '0') + (p[14] - '0');
    int exponent = (p[12] == '-' ? -power : power) - 9;
    if (exponent < -EXACT_POWER || exponent > EXACT_POWER) return NULL;
    double m = (double)mantissa;   /* exact, and so is the power: one rounding */
    *value = exponent < 0 ? m / POWERS_OF_TEN[-exponent] : m * POWERS_OF_TEN[exponent];
    return p + 15;
}

/* parse_decimal's general way, for any such number at p. */
static const char *parse_any_decimal(const char *p, double *value) {
    const char *start = p;
    while (*p == '0') p++;   /* leading zeros are not significant */
    const char *first = p;
    uint64_t mantissa = 0;   /* wraps past 19 digits: strtod then */
    for (; is_digit(*p); p++) mantissa = 10 * mantissa + (uint64_t)(*p - '0');
    int digits = (int)(p - start), significant = (int)(p - first), exponent = 0;
    if (*p == '.') {
        const char *fraction = ++p;
        if (!mantissa) while (*p == '0') p++;   /* 0.000123: still not significant */
        const char *counted = p;
        for (; is_digit(*p); p++) mantissa = 10 * mantissa + (uint64_t)(*p - '0');
        digits += (int)(p - fraction);
        significant += (int)(p - counted);
        exponent = -(int)(p - fraction);
    }
    if (!digits) return NULL;
    if (*p == 'e' || *p == 'E') {
        p++;
        int negative = *p == '-', power = 0, power_digits = 0;
        if (*p == '-' || *p == '+') p++;
        for (; is_digit(*p); p++) {
            if (++power_digits > 4) return NULL;
            power = 10 * power + (*p - '0');
        }
        if (!power_digits) return NULL;
        exponent += negative ? -power : power;
    }
    if (significant <= 19 && mantissa <= EXACT_INTEGER && exponent >= -EXACT_POWER && exponent <= EXACT_POWER) {
        double m = (double)mantissa;   /* exact, and so is the power: one rounding */
        *value = exponent < 0 ? m / POWERS_OF_TEN[-exponent] : m * POWERS_OF_TEN[exponent];
        return p;
    }
    char *stop;
    *value = strtod(start, &stop);   /* R keeps LC_NUMERIC "C": '.' is the decimal point */
    return stop == p ? p : NULL;
}

/* A non-negative decimal number at p: digits [. digits] [e|E [+|-] digits],
 * with at least one digit before the exponent and at most 4 in it. Returns
 * the end and the nearest double in *value, or NULL. */
static const char *parse_decimal(const char *p, const char *end, double *value) {
    const char *fast = parse_kernel_format(p, end, value);
    return fast ? fast : parse_any_decimal(p, value);
}

/* The file of `size` bytes, mapped read-only (munmap it), or NULL. */
static char *map_whole(const char *path, size_t size) {
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    struct stat st;
    void *bytes = MAP_FAILED;
    if (fstat(fd, &st) == 0 && (size_t)st.st_size == size) {
        bytes = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    }
    close(fd);
    return bytes == MAP_FAILED ? NULL : bytes;
}

static int starts_with(const char *p, const char *prefix) { return strncmp(p, prefix, strlen(prefix)) == 0; }

/* The rows of the file's bytes (ending in '\n') into id[], round[] (1
 * where the file has no round column: *rounded 0), seconds[], rows_of_id[]
 * and rows_of_round[] (both zeroed: the rows of each id, and of each (id,
 * round) at its slot first_round[id] + round - 1), and their number; -1 if
 * the file is not clean. */
static R_xlen_t parse_rows(const char *p, const char *end, const int *nrep, const int *blocks, int max_id, int *id,
                           int *round, double *seconds, R_xlen_t *rows_of_id, const R_xlen_t *first_round,
                           R_xlen_t *rows_of_round, int *rounded) {
    int extra;   /* columns after seconds: work_seconds, delay_seconds */
    *rounded = 0;
    if (starts_with(p, "id,rep,seconds\n")) extra = 0;
    else if (starts_with(p, "id,rep,seconds,work_seconds\n")) extra = 1;
    else if (starts_with(p, "id,rep,seconds,work_seconds,delay_seconds\n")) extra = 2;
    else if (starts_with(p, "id,rep,round,seconds,work_seconds\n")) extra = 1, *rounded = 1;
    else if (starts_with(p, "id,rep,round,seconds,work_seconds,delay_seconds\n")) extra = 2, *rounded = 1;
    else return -1;
    p = strchr(p, '\n') + 1;
    R_xlen_t rows = 0;
    while (p < end) {
        R_xlen_t i = rows++;
        int rep;
        double work;
        if (!(p = parse_count(p, &id[i])) || *p != ',' || !(p = parse_count(p + 1, &rep)) || *p != ',') return -1;
        round[i] = 1;
        if (*rounded && (!(p = parse_count(p + 1, &round[i])) || *p != ',')) return -1;
        if (!(p = parse_decimal(p + 1, end, &seconds[i])) || !(seconds[i] > 0 && seconds[i] <= DBL_MAX)) return -1;
        for (int k = 0; k < extra; k++) {
            if (*p++ != ',') return -1;
            if (p[0] == '0' && (p[1] == ',' || p[1] == '\n')) {   /* none: most rows, and no call */
                p++;
                continue;
            }
            if (!(p = parse_decimal(p, end, &work)) || !(work <= DBL_MAX)) return -1;
        }
        if (*p++ != '\n' || id[i] > max_id || nrep[id[i]] <= 0 || round[i] < 1 || round[i] > blocks[id[i]]) return -1;
        rows_of_id[id[i]]++;
        rows_of_round[first_round[id[i]] + round[i] - 1]++;
    }
    /* every experiment whole: nrep rows, each round its share (kernel/rounds.c) */
    for (int k = 0; k <= max_id; k++) {
        if (!rows_of_id[k]) continue;
        if (rows_of_id[k] != nrep[k]) return -1;
        for (int r = 0; *rounded && r < blocks[k]; r++) {
            R_xlen_t share = nrep[k] / blocks[k] + (r < nrep[k] % blocks[k]);
            if (rows_of_round[first_round[k] + r] != share) return -1;
        }
    }
    return rows;
}

R_xlen_t round_slots_of(const int *nrep, const int *blocks, int max_id, R_xlen_t *first_round) {
    first_round[0] = 0;
    for (int k = 0; k <= max_id; k++) first_round[k + 1] = first_round[k] + (nrep[k] > 0 ? blocks[k] : 0);
    return first_round[max_id + 1];
}

R_xlen_t read_clean_rows(const char *path, size_t size, const int *nrep, const int *blocks, int max_id,
                         parsed_rows_t *rows, int *rounded) {
    char *bytes = map_whole(path, size);
    if (!bytes) return -1;
    /* Every scan stops at a '\n', so the last byte being one keeps them in the file. */
    R_xlen_t n = bytes[size - 1] == '\n'
                     ? parse_rows(bytes, bytes + size, nrep, blocks, max_id, rows->id, rows->round, rows->seconds,
                                  rows->rows_of_id, rows->first_round, rows->rows_of_round, rounded)
                     : -1;
    munmap(bytes, size);
    return n;
}

typedef struct {
    const char *path;
    size_t size;
    const int *nrep, *blocks;
    int max_id;
    SEXP store, offset, round_offset;
    scratch_t scratch;
} reading_t;

/* OUT (a list) with a field "rounds" added: ROUNDS, or NULL. */
static SEXP with_rounds(SEXP out, SEXP rounds) {
    R_xlen_t n = XLENGTH(out);
    SEXP longer = PROTECT(allocVector(VECSXP, n + 1)), names = PROTECT(allocVector(STRSXP, n + 1));
    SEXP old_names = getAttrib(out, R_NamesSymbol);
    for (R_xlen_t i = 0; i < n; i++) {
        SET_VECTOR_ELT(longer, i, VECTOR_ELT(out, i));
        SET_STRING_ELT(names, i, STRING_ELT(old_names, i));
    }
    SET_VECTOR_ELT(longer, n, rounds);
    SET_STRING_ELT(names, n, mkChar("rounds"));
    setAttrib(longer, R_NamesSymbol, names);
    UNPROTECT(2);
    return longer;
}

/* The round medians of the slots (median[s], kept[s]) that have rows, as
 * nbh_round_medians gives them: list(id, round, median, n), by id, then
 * round. */
static SEXP slots_as_list(const R_xlen_t *first_round, int max_id, const R_xlen_t *rows_of_round,
                          const double *median, const int *kept) {
    R_xlen_t groups = 0;
    for (R_xlen_t s = 0; s < first_round[max_id + 1]; s++) groups += rows_of_round[s] > 0;
    const char *names[] = {"id", "round", "median", "n", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    int *out_id = INTEGER(SET_VECTOR_ELT(out, 0, allocVector(INTSXP, groups)));
    int *out_round = INTEGER(SET_VECTOR_ELT(out, 1, allocVector(INTSXP, groups)));
    double *out_median = REAL(SET_VECTOR_ELT(out, 2, allocVector(REALSXP, groups)));
    int *out_n = INTEGER(SET_VECTOR_ELT(out, 3, allocVector(INTSXP, groups)));
    R_xlen_t g = 0;
    for (int k = 0; k <= max_id; k++) {
        for (R_xlen_t s = first_round[k]; s < first_round[k + 1]; s++) {
            if (!rows_of_round[s]) continue;
            out_id[g] = k;
            out_round[g] = (int)(s - first_round[k]) + 1;
            out_median[g] = median[s];
            out_n[g] = kept[s];
            g++;
        }
    }
    UNPROTECT(1);
    return out;
}

/* The list nbh_read_run_medians returns for a file read ahead, its values
 * copied into the store. */
static SEXP taken_run_medians(const read_ahead_file_t *file, SEXP store, SEXP offset, SEXP round_offset) {
    memcpy(store_region(store, offset, file->rows), file->times, (size_t)file->rows * sizeof(double));
    if (file->rounded) {
        memcpy(store_region(store, round_offset, file->slots), file->round_median,
               (size_t)file->slots * sizeof(double));
    }
    run_medians_t fields;
    SEXP out = PROTECT(run_medians_list(file->groups, R_NilValue, &fields));
    size_t groups = (size_t)file->groups;
    memcpy(fields.id, file->medians.id, groups * sizeof(int));
    memcpy(fields.median, file->medians.median, groups * sizeof(double));
    memcpy(fields.n, file->medians.n, groups * sizeof(int));
    memcpy(fields.p90, file->medians.p90, groups * sizeof(double));
    memcpy(fields.p99, file->medians.p99, groups * sizeof(double));
    memcpy(fields.below, file->medians.below, groups * sizeof(int));
    memcpy(fields.start, file->medians.start, groups * sizeof(int));
    out = with_rounds(out, file->rounded ? ScalarLogical(TRUE) : R_NilValue);
    UNPROTECT(1);
    return out;
}

static SEXP read_run_medians(void *data) {
    reading_t *r = data;
    size_t capacity = r->size / 6 + 1;
    parsed_rows_t p;
    p.id = scratch_reused(0, capacity, sizeof(int));   /* the same pages for every file */
    p.round = scratch_reused(1, capacity, sizeof(int));
    p.seconds = scratch_reused(2, capacity, sizeof(double));
    p.rows_of_id = scratch_alloc(&r->scratch, (size_t)r->max_id + 1, sizeof(R_xlen_t));
    /* the slots of the (id, round) groups: id k's rounds from first_round[k] */
    p.first_round = scratch_alloc(&r->scratch, (size_t)r->max_id + 2, sizeof(R_xlen_t));
    R_xlen_t slots = round_slots_of(r->nrep, r->blocks, r->max_id, p.first_round);
    p.rows_of_round = scratch_alloc(&r->scratch, (size_t)slots + 1, sizeof(R_xlen_t));
    int rounded = 0;
    R_xlen_t rows = read_clean_rows(r->path, r->size, r->nrep, r->blocks, r->max_id, &p, &rounded);
    if (rows <= 0) return R_NilValue;
    if (!rounded) {
        SEXP out = PROTECT(run_medians_of(p.id, p.seconds, rows, r->max_id, p.rows_of_id,
                                          store_region(r->store, r->offset, rows), &r->scratch));
        out = with_rounds(out, R_NilValue);
        UNPROTECT(1);
        return out;
    }
    /* With rounds: the times by slot, and so by id, straight into the store
     * (or a vector), each slot's sorted and its median taken; then each id's
     * times sorted whole for the run's medians. The round medians go to the
     * store at round_offset, or come back as a list. */
    SEXP values = R_NilValue;
    double *grouped = store_region(r->store, r->offset, rows);
    if (!grouped) grouped = REAL(values = PROTECT(allocVector(REALSXP, rows)));
    int stored = !isNull(r->store) && !isNull(r->round_offset);
    double *median = stored ? store_region(r->store, r->round_offset, slots)
                            : scratch_alloc_dirty(&r->scratch, (size_t)slots + 1, sizeof(double));
    int *kept = stored ? NULL : scratch_alloc_dirty(&r->scratch, (size_t)slots + 1, sizeof(int));
    R_xlen_t *next = scratch_alloc_dirty(&r->scratch, (size_t)slots + 1, sizeof(R_xlen_t));
    round_medians_in_slots(p.id, p.round, p.seconds, rows, p.first_round, slots, p.rows_of_round, grouped, median,
                           kept, next);
    SEXP rounds = PROTECT(stored ? ScalarLogical(TRUE)
                                 : slots_as_list(p.first_round, r->max_id, p.rows_of_round, median, kept));
    SEXP out = PROTECT(grouped_run_medians(grouped, values, rows, r->max_id, p.rows_of_id));
    out = with_rounds(out, rounds);
    UNPROTECT(isNull(values) ? 2 : 3);
    return out;
}

SEXP nbh_read_run_medians(SEXP file_, SEXP nrep_of_id_, SEXP blocks_of_id_, SEXP store_, SEXP offset_,
                          SEXP round_offset_) {
    if (!isString(file_) || XLENGTH(file_) != 1 || !isInteger(nrep_of_id_) || XLENGTH(nrep_of_id_) < 1 ||
        XLENGTH(nrep_of_id_) > INT_MAX || !isInteger(blocks_of_id_) ||
        XLENGTH(blocks_of_id_) != XLENGTH(nrep_of_id_)) {
        error("nbh_read_run_medians: a file name and the nrep and blocks of every experiment id expected");
    }
    for (R_xlen_t k = 0; k < XLENGTH(blocks_of_id_); k++) {
        if (INTEGER(blocks_of_id_)[k] < 1) error("nbh_read_run_medians: experiment id %d has no rounds", (int)k);
    }
    reading_t r = {R_ExpandFileName(translateChar(STRING_ELT(file_, 0))), 0, INTEGER(nrep_of_id_),
                   INTEGER(blocks_of_id_), (int)(XLENGTH(nrep_of_id_) - 1), store_, offset_, round_offset_, {{0}, 0}};
    struct stat st;
    if (stat(r.path, &st) != 0 || st.st_size <= 0) return R_NilValue;
    r.size = (size_t)st.st_size;
    read_ahead_file_t ahead;
    if (read_ahead_take(&st, r.nrep, r.blocks, r.max_id, !isNull(store_), !isNull(round_offset_), &ahead)) {
        return taken_run_medians(&ahead, store_, offset_, round_offset_);
    }
    return with_scratch(read_run_medians, &r, &r.scratch);
}
