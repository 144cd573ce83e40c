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

/* The stored runs of a call: run k's round medians from median[k], its
 * slots those of layout layout[k] (0-based), its run run[k]; layout l's
 * slot s has cell slot_cell[l][s] and round slot_round[l][s]. */
typedef struct {
    R_xlen_t runs;
    int layouts;
    const double **median;
    const int *layout, *run;
    const int **slot_cell, **slot_round;
    const R_xlen_t *slots;
} stored_t;

static stored_t stored_runs(units_call_t *call) {
    stored_t st = {0};
    if (isNull(call->store)) return st;
    R_xlen_t size;
    const double *values = stored_values(call->store, &size);
    st.runs = XLENGTH(call->offset);
    st.layouts = (int)XLENGTH(call->slot_cell);
    st.median = scratch_alloc_dirty(&call->scratch, (size_t)st.runs + 1, sizeof(double *));
    int *layout = scratch_alloc_dirty(&call->scratch, (size_t)st.runs + 1, sizeof(int));
    st.slot_cell = scratch_alloc_dirty(&call->scratch, (size_t)st.layouts + 1, sizeof(int *));
    st.slot_round = scratch_alloc_dirty(&call->scratch, (size_t)st.layouts + 1, sizeof(int *));
    R_xlen_t *slots = scratch_alloc_dirty(&call->scratch, (size_t)st.layouts + 1, sizeof(R_xlen_t));
    for (int l = 0; l < st.layouts; l++) {
        st.slot_cell[l] = INTEGER(VECTOR_ELT(call->slot_cell, l));
        st.slot_round[l] = INTEGER(VECTOR_ELT(call->slot_round, l));
        slots[l] = XLENGTH(VECTOR_ELT(call->slot_cell, l));
        for (R_xlen_t s = 0; s < slots[l]; s++) {
            if (st.slot_cell[l][s] == NA_INTEGER) continue;
            if (st.slot_cell[l][s] < 1 || st.slot_round[l][s] == NA_INTEGER || st.slot_round[l][s] < 0) {
                error("nbh_round_units: layout %d, slot %d: cell %d, round %d (cells from 1, rounds from 0)", l + 1,
                      (int)s + 1, st.slot_cell[l][s], st.slot_round[l][s]);
            }
        }
    }
    const double *offset = REAL(call->offset);
    for (R_xlen_t k = 0; k < st.runs; k++) {
        layout[k] = INTEGER(call->layout)[k] - 1;
        R_xlen_t n = slots[layout[k]];
        if (!(offset[k] >= 0 && offset[k] + (double)n <= (double)size)) {
            error("nbh_round_units: stored run %d's %.0f slots at %.0f do not fit the store", (int)k + 1, (double)n,
                  offset[k]);
        }
        if (INTEGER(call->stored_run)[k] == NA_INTEGER || INTEGER(call->stored_run)[k] < 1) {
            error("nbh_round_units: stored run %d is run %d (runs from 1)", (int)k + 1, INTEGER(call->stored_run)[k]);
        }
        st.median[k] = values + (R_xlen_t)offset[k];
    }
    st.layout = layout;
    st.run = INTEGER(call->stored_run);
    st.slots = slots;
    return st;
}

/* A row's (run, round) slot of unit_of_slot. */
#define UNIT_SLOT(run, round) ((R_xlen_t)((run) - 1) * rounds + (round))

static SEXP round_units(void *data) {
    units_call_t *call = data;
    const int *cell = INTEGER(call->cell), *run = INTEGER(call->run), *round = INTEGER(call->round);
    const double *median = REAL(call->median);
    int rows = (int)XLENGTH(call->cell), max_cell = 0, max_run = 0, max_round = 0;
    R_xlen_t kept = 0;
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
    stored_t st = stored_runs(call);
    for (R_xlen_t k = 0; k < st.runs; k++) {
        if (st.run[k] > max_run) max_run = st.run[k];
    }
    for (int l = 0; l < st.layouts; l++) {
        for (R_xlen_t s = 0; s < st.slots[l]; s++) {
            if (st.slot_cell[l][s] == NA_INTEGER) continue;
            if (st.slot_cell[l][s] > max_cell) max_cell = st.slot_cell[l][s];
            if (st.slot_round[l][s] > max_round) max_round = st.slot_round[l][s];
        }
    }
    /* Each (run, round) a slot, in the order of run, then round: the units. */
    int rounds = max_round + 1;
    double slots = (double)max_run * rounds;
    if (slots > (double)INT_MAX) error("nbh_round_units: %d runs of %d rounds are too many units", max_run, max_round);
    int *unit_of_slot = scratch_alloc(&call->scratch, (size_t)slots + 1, sizeof(int));
    /* start[c - 1] .. start[c] - 1: cell c's rows in the result. */
    R_xlen_t *start = scratch_alloc(&call->scratch, (size_t)max_cell + 1, sizeof(R_xlen_t));
    for (int i = 0; i < rows; i++) {
        if (cell[i] == NA_INTEGER || ISNAN(median[i])) continue;
        unit_of_slot[UNIT_SLOT(run[i], round[i])] = 1;
        start[cell[i]]++;
    }
    for (R_xlen_t k = 0; k < st.runs; k++) {   /* the stored medians in the order they lie */
        const int *slot_cell = st.slot_cell[st.layout[k]], *slot_round = st.slot_round[st.layout[k]];
        for (R_xlen_t s = 0; s < st.slots[st.layout[k]]; s++) {
            if (slot_cell[s] == NA_INTEGER || ISNAN(st.median[k][s])) continue;
            unit_of_slot[UNIT_SLOT(st.run[k], slot_round[s])] = 1;
            start[slot_cell[s]]++;
            kept++;
        }
    }
    if (kept >= INT_MAX) error("nbh_round_units: more than %d round medians", INT_MAX - 1);
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
    /* The given rows by cell (a stable counting sort), straight into the
     * result; then each cell's rows by unit where they are not in its order
     * already. With the rows of each run together, the runs in order and
     * each cell's rounds in order (as reduce_runs gives them) none needs a
     * sort, and a cell's rounds of a run are written side by side. */
    R_xlen_t *next = scratch_alloc_dirty(&call->scratch, (size_t)max_cell + 1, sizeof(R_xlen_t));
    memcpy(next, start, ((size_t)max_cell + 1) * sizeof(R_xlen_t));
    for (int i = 0; i < rows; i++) {
        if (cell[i] == NA_INTEGER || ISNAN(median[i])) continue;
        R_xlen_t at = next[cell[i] - 1]++;
        out_unit[at] = unit_of_slot[UNIT_SLOT(run[i], round[i])];
        out_median[at] = median[i];
    }
    /* The stored medians after them, gathered a cell at a time: each layout's
     * slots of one cell (side by side, as the workers store an experiment's
     * rounds) from every run of that layout, in the order of the runs. The
     * result is written in order; the runs' medians are read where they lie. */
    R_xlen_t *runs_of_layout = scratch_alloc(&call->scratch, (size_t)st.layouts + 1, sizeof(R_xlen_t));
    R_xlen_t *run_order = scratch_alloc_dirty(&call->scratch, (size_t)st.runs + 1, sizeof(R_xlen_t));
    for (R_xlen_t k = 0; k < st.runs; k++) runs_of_layout[st.layout[k] + 1]++;
    for (int l = 0; l < st.layouts; l++) runs_of_layout[l + 1] += runs_of_layout[l];
    R_xlen_t *next_run = scratch_alloc_dirty(&call->scratch, (size_t)st.layouts + 1, sizeof(R_xlen_t));
    memcpy(next_run, runs_of_layout, ((size_t)st.layouts + 1) * sizeof(R_xlen_t));
    for (R_xlen_t k = 0; k < st.runs; k++) run_order[next_run[st.layout[k]]++] = k;
    for (int l = 0; l < st.layouts; l++) {
        const int *slot_cell = st.slot_cell[l], *slot_round = st.slot_round[l];
        for (R_xlen_t first = 0, last; first < st.slots[l]; first = last) {
            for (last = first + 1; last < st.slots[l] && slot_cell[last] == slot_cell[first];) last++;
            int c = slot_cell[first];
            if (c == NA_INTEGER) continue;
            for (R_xlen_t j = runs_of_layout[l]; j < runs_of_layout[l + 1]; j++) {
                R_xlen_t k = run_order[j];
                for (R_xlen_t s = first; s < last; s++) {
                    double v = st.median[k][s];
                    if (ISNAN(v)) continue;
                    R_xlen_t at = next[c - 1]++;
                    out_unit[at] = unit_of_slot[UNIT_SLOT(st.run[k], slot_round[s])];
                    out_median[at] = v;
                }
            }
        }
    }
    for (int c = 0; c < max_cell; c++) {
        for (R_xlen_t j = start[c]; j < start[c + 1]; j++) out_cell[j] = c + 1;
    }
    unit_row_t *group = NULL;   /* room for the largest cell's rows, once one needs a sort */
    for (int c = 0; c < max_cell; c++) {
        for (R_xlen_t j = start[c] + 1; j < start[c + 1]; j++) {
            if (out_unit[j] >= out_unit[j - 1]) continue;
            if (!group) {
                R_xlen_t largest = 0;
                for (int k = 0; k < max_cell; k++) {
                    if (start[k + 1] - start[k] > largest) largest = start[k + 1] - start[k];
                }
                group = scratch_alloc_dirty(&call->scratch, (size_t)largest, sizeof(unit_row_t));
            }
            sort_by_unit(out_unit + start[c], out_median + start[c], (int)(start[c + 1] - start[c]), group);
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
