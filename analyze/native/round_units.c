/* The units of the paired tests (analyze/assess/paired_test.R:
 * round_unit_table): every round of every run is one unit, numbered in
 * the order of (run, round), and the round medians come sorted by (cell,
 * unit) -- what numbering the distinct (run, round) of the table and
 * joining it back, then sorting millions of rows by (cell, unit), gives,
 * by a counting sort.
 *
 * .Call("nbh_round_units", cell, run, round, median, store, offset, layout,
 * slot_cell, slot_round, stored_run): one row per round median, in any
 * order (fastest with the rows of each run together, the runs in order,
 * each cell's rounds in order); rows whose cell or median is NA are left
 * out, the others have run >= 1 and round >= 0. Beside them, where store
 * (value_store.c) is not NULL, the round medians that the workers put in
 * the store (results_file.c): stored run k's from position offset[k], its
 * slot s with cell slot_cell[[layout[k]]][s] and round
 * slot_round[[layout[k]]][s], its run stored_run[k]. Returns list(cell,
 * unit, median, run, round): the first three by (cell, unit), the rows of
 * one (cell, unit) in their given order (the stored after the others); the
 * last two each unit's run and round, unit k at position k. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "nbh_analyze.h"

/* A cell's rows out of unit order, sorted by (unit, position) with their medians. */
typedef struct {
    int unit;
    int position;
    double median;
} unit_row_t;

static int by_unit_then_position(const void *x, const void *y) {
    const unit_row_t *a = x, *b = y;
    if (a->unit != b->unit) return a->unit < b->unit ? -1 : 1;
    return (a->position > b->position) - (a->position < b->position);
}

static void sort_by_unit(int *unit, double *median, int n, unit_row_t *rows) {
    for (int j = 0; j < n; j++) rows[j] = (unit_row_t){unit[j], j, median[j]};
    qsort(rows, (size_t)n, sizeof(unit_row_t), by_unit_then_position);
    for (int j = 0; j < n; j++) {
        unit[j] = rows[j].unit;
        median[j] = rows[j].median;
    }
}

typedef struct {
    SEXP cell, run, round, median, store, offset, layout, slot_cell, slot_round, stored_run;
    scratch_t scratch;
} units_call_t;

/* The rows of CALL: its given ones, then the stored ones (in scratch). */
typedef struct {
    const int *cell, *run, *round;
    const double *median;
    int rows;
} unit_rows_t;

static unit_rows_t all_rows(units_call_t *call) {
    R_xlen_t given = XLENGTH(call->cell), rows = given;
    unit_rows_t all = {INTEGER(call->cell), INTEGER(call->run), INTEGER(call->round), REAL(call->median),
                       (int)given};
    if (isNull(call->store)) return all;
    R_xlen_t size, runs = XLENGTH(call->offset);
    const double *values = stored_values(call->store, &size);
    const double *offset = REAL(call->offset);
    const int *layout = INTEGER(call->layout), *stored_run = INTEGER(call->stored_run);
    for (R_xlen_t k = 0; k < runs; k++) {
        SEXP cells = VECTOR_ELT(call->slot_cell, layout[k] - 1);
        R_xlen_t slots = XLENGTH(cells);
        if (!(offset[k] >= 0 && offset[k] + (double)slots <= (double)size)) {
            error("nbh_round_units: stored run %d's %.0f slots at %.0f do not fit the store", (int)k + 1,
                  (double)slots, offset[k]);
        }
        rows += slots;
    }
    if (rows >= INT_MAX) error("nbh_round_units: more than %d round medians", INT_MAX - 1);
    int *cell = scratch_alloc_dirty(&call->scratch, (size_t)rows + 1, sizeof(int));
    int *run = scratch_alloc_dirty(&call->scratch, (size_t)rows + 1, sizeof(int));
    int *round = scratch_alloc_dirty(&call->scratch, (size_t)rows + 1, sizeof(int));
    double *median = scratch_alloc_dirty(&call->scratch, (size_t)rows + 1, sizeof(double));
    memcpy(cell, all.cell, (size_t)given * sizeof(int));
    memcpy(run, all.run, (size_t)given * sizeof(int));
    memcpy(round, all.round, (size_t)given * sizeof(int));
    memcpy(median, all.median, (size_t)given * sizeof(double));
    R_xlen_t at = given;
    for (R_xlen_t k = 0; k < runs; k++) {
        SEXP cells = VECTOR_ELT(call->slot_cell, layout[k] - 1), rounds = VECTOR_ELT(call->slot_round, layout[k] - 1);
        const int *slot_cell = INTEGER(cells), *slot_round = INTEGER(rounds);
        const double *slot_median = values + (R_xlen_t)offset[k];
        for (R_xlen_t s = 0; s < XLENGTH(cells); s++) {
            if (slot_cell[s] == NA_INTEGER || ISNAN(slot_median[s])) continue;
            cell[at] = slot_cell[s];
            run[at] = stored_run[k];
            round[at] = slot_round[s];
            median[at] = slot_median[s];
            at++;
        }
    }
    return (unit_rows_t){cell, run, round, median, (int)at};
}

static SEXP round_units(void *data) {
    units_call_t *call = data;
    unit_rows_t all = all_rows(call);
    const int *cell = all.cell, *run = all.run, *round = all.round;
    const double *median = all.median;
    int rows = all.rows, kept = 0, max_cell = 0, max_run = 0, max_round = 0;
    for (int i = 0; i < rows; i++) {
        if (cell[i] == NA_INTEGER || ISNAN(median[i])) continue;
        if (cell[i] < 1 || run[i] == NA_INTEGER || run[i] < 1 || round[i] == NA_INTEGER || round[i] < 0) {
            error("nbh_round_units: row %d: cell %d, run %d, round %d (cells and runs from 1, rounds from 0)", i + 1,
                  cell[i], run[i], round[i]);
        }
        if (cell[i] > max_cell) max_cell = cell[i];
        if (run[i] > max_run) max_run = run[i];
        if (round[i] > max_round) max_round = round[i];
        kept++;
    }
    /* Each (run, round) a slot, in the order of run, then round: the units. */
    int rounds = max_round + 1;
    double slots = (double)max_run * rounds;
    if (slots > (double)INT_MAX) error("nbh_round_units: %d runs of %d rounds are too many units", max_run, max_round);
    int *unit_of_slot = scratch_alloc(&call->scratch, (size_t)slots + 1, sizeof(int));
    /* start[c - 1] .. start[c] - 1: cell c's rows in the result. */
    int *start = scratch_alloc(&call->scratch, (size_t)max_cell + 1, sizeof(int));
    for (int i = 0; i < rows; i++) {
        if (cell[i] == NA_INTEGER || ISNAN(median[i])) continue;
        unit_of_slot[(R_xlen_t)(run[i] - 1) * rounds + round[i]] = 1;
        start[cell[i]]++;
    }
    int units = 0;
    for (R_xlen_t s = 0; s < (R_xlen_t)slots; s++) {
        if (unit_of_slot[s]) unit_of_slot[s] = ++units;
    }
    for (int c = 1; c <= max_cell; c++) start[c] += start[c - 1];

    const char *names[] = {"cell", "unit", "median", "run", "round", ""};
    SEXP out = PROTECT(mkNamed(VECSXP, names));
    int *out_cell = INTEGER(SET_VECTOR_ELT(out, 0, allocVector(INTSXP, kept)));
    int *out_unit = INTEGER(SET_VECTOR_ELT(out, 1, allocVector(INTSXP, kept)));
    double *out_median = REAL(SET_VECTOR_ELT(out, 2, allocVector(REALSXP, kept)));
    int *unit_run = INTEGER(SET_VECTOR_ELT(out, 3, allocVector(INTSXP, units)));
    int *unit_round = INTEGER(SET_VECTOR_ELT(out, 4, allocVector(INTSXP, units)));
    /* The rows by cell (a stable counting sort), straight into the result;
     * then each cell's rows by unit where they are not in its order
     * already. With the rows of each run together, the runs in order and
     * each cell's rounds in order (as reduce_runs gives them) none needs a
     * sort, and a cell's rounds of a run are written side by side. */
    int *next = scratch_alloc_dirty(&call->scratch, (size_t)max_cell + 1, sizeof(int));
    memcpy(next, start, ((size_t)max_cell + 1) * sizeof(int));
    for (int i = 0; i < rows; i++) {
        if (cell[i] == NA_INTEGER || ISNAN(median[i])) continue;
        int at = next[cell[i] - 1]++;
        out_cell[at] = cell[i];
        out_unit[at] = unit_of_slot[(R_xlen_t)(run[i] - 1) * rounds + round[i]];
        out_median[at] = median[i];
    }
    unit_row_t *group = NULL;   /* room for the largest cell's rows, once one needs a sort */
    for (int c = 0; c < max_cell; c++) {
        for (int j = start[c] + 1; j < start[c + 1]; j++) {
            if (out_unit[j] >= out_unit[j - 1]) continue;
            if (!group) {
                int largest = 0;
                for (int k = 0; k < max_cell; k++) {
                    if (start[k + 1] - start[k] > largest) largest = start[k + 1] - start[k];
                }
                group = scratch_alloc_dirty(&call->scratch, (size_t)largest, sizeof(unit_row_t));
            }
            sort_by_unit(out_unit + start[c], out_median + start[c], start[c + 1] - start[c], group);
            break;
        }
    }
    for (R_xlen_t s = 0; s < (R_xlen_t)slots; s++) {
        int k = unit_of_slot[s];
        if (!k) continue;
        unit_run[k - 1] = (int)(s / rounds) + 1;
        unit_round[k - 1] = (int)(s % rounds);
    }
    UNPROTECT(1);
    return out;
}

SEXP nbh_round_units(SEXP cell_, SEXP run_, SEXP round_, SEXP median_, SEXP store_, SEXP offset_, SEXP layout_,
                     SEXP slot_cell_, SEXP slot_round_, SEXP stored_run_) {
    if (!isInteger(cell_) || !isInteger(run_) || !isInteger(round_) || !isReal(median_) ||
        XLENGTH(run_) != XLENGTH(cell_) || XLENGTH(round_) != XLENGTH(cell_) || XLENGTH(median_) != XLENGTH(cell_)) {
        error("nbh_round_units: cell, run, round (integer) and median (double) of the same length expected");
    }
    if (XLENGTH(cell_) >= INT_MAX) error("nbh_round_units: more than %d round medians", INT_MAX - 1);
    if (!isNull(store_)) {
        R_xlen_t runs = XLENGTH(offset_);
        if (!isReal(offset_) || !isInteger(layout_) || !isInteger(stored_run_) || XLENGTH(layout_) != runs ||
            XLENGTH(stored_run_) != runs || TYPEOF(slot_cell_) != VECSXP || TYPEOF(slot_round_) != VECSXP ||
            XLENGTH(slot_round_) != XLENGTH(slot_cell_)) {
            error("nbh_round_units: the stored runs' offsets, layouts and runs, and the layouts' slots, expected");
        }
        for (R_xlen_t k = 0; k < XLENGTH(slot_cell_); k++) {
            SEXP cells = VECTOR_ELT(slot_cell_, k), rounds = VECTOR_ELT(slot_round_, k);
            if (!isInteger(cells) || !isInteger(rounds) || XLENGTH(cells) != XLENGTH(rounds)) {
                error("nbh_round_units: layout %d: a cell and a round (integer) per slot expected", (int)k + 1);
            }
        }
        for (R_xlen_t k = 0; k < runs; k++) {
            if (INTEGER(layout_)[k] < 1 || INTEGER(layout_)[k] > XLENGTH(slot_cell_)) {
                error("nbh_round_units: stored run %d has no layout %d", (int)k + 1, INTEGER(layout_)[k]);
            }
        }
    }
    units_call_t call = {cell_, run_, round_, median_, store_, offset_, layout_, slot_cell_, slot_round_, stored_run_,
                         {{0}, 0}};
    return with_scratch(round_units, &call, &call.scratch);
}
