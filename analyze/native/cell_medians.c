/* The median of each cell's run medians: what data.table's median by group
 * (GForce gmedian) gives in analyze/assess/assess_guideline.R, bit for bit (the
 * middle value, or the two middle ones' (a + b) / 2), for the cells asked,
 * from the rows the cell's values occupy, without a grouping of the table.
 *
 * .Call("nbh_cell_medians", value, first, runs, cells): value double; the
 * values of cell c are value[first[c] .. first[c] + runs[c] - 1] (1-based);
 * cells the cells asked, each with runs > 0. Returns their medians, or
 * NULL if a value is NA (R decides then). */
#include <string.h>
#include "nbh_analyze.h"

typedef struct {
    SEXP value, first, runs, cells;
    scratch_t scratch;
} cell_medians_call_t;

static SEXP cell_medians_call(void *data) {
    cell_medians_call_t *call = data;
    const double *value = REAL(call->value);
    const int *first = INTEGER(call->first), *runs = INTEGER(call->runs), *cells = INTEGER(call->cells);
    R_xlen_t n_values = XLENGTH(call->value), n_cells = XLENGTH(call->cells), n_known = XLENGTH(call->runs);
    int most = 0;
    for (R_xlen_t k = 0; k < n_cells; k++) {
        int c = cells[k];
        if (c == NA_INTEGER || c < 1 || c > n_known || runs[c - 1] < 1 || first[c - 1] < 1 ||
            (R_xlen_t)first[c - 1] - 1 + runs[c - 1] > n_values) {
            error("nbh_cell_medians: cell %d has no values", c);
        }
        if (runs[c - 1] > most) most = runs[c - 1];
    }
    double *s = scratch_alloc(&call->scratch, (size_t)most, sizeof(double));
    SEXP out = PROTECT(allocVector(REALSXP, n_cells));
    for (R_xlen_t k = 0; k < n_cells; k++) {
        int n = runs[cells[k] - 1];
        memcpy(s, value + first[cells[k] - 1] - 1, (size_t)n * sizeof(double));
        for (int i = 0; i < n; i++) {
            if (ISNAN(s[i])) {
                UNPROTECT(1);
                return R_NilValue;
            }
        }
        sort_times(s, n);
        REAL(out)[k] = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
    }
    UNPROTECT(1);
    return out;
}

SEXP nbh_cell_medians(SEXP value, SEXP first, SEXP runs, SEXP cells) {
    if (!isReal(value) || !isInteger(first) || !isInteger(runs) || !isInteger(cells) ||
        XLENGTH(first) != XLENGTH(runs)) {
        error("nbh_cell_medians: value (double), first, runs and cells (integer) expected");
    }
    cell_medians_call_t call = {value, first, runs, cells, {{0}, 0}};
    return with_scratch(cell_medians_call, &call, &call.scratch);
}
