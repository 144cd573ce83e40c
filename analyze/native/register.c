/* The .Call entry points of the analyzer's library (nbh_analyze.h). */
#include <R_ext/Rdynload.h>
#include "nbh_analyze.h"

/* (void (*)(void)): the cast from a function pointer that -Wextra allows. */
#define ROUTINE(name, args) {#name, (DL_FUNC)(void (*)(void))name, args}

static const R_CallMethodDef routines[] = {
    ROUTINE(nbh_tukey_medians, 4),
    ROUTINE(nbh_read_run_medians, 6),
    ROUTINE(nbh_round_medians, 3),
    ROUTINE(nbh_rank_sum_test, 6),
    ROUTINE(nbh_signed_rank_test, 4),
    ROUTINE(nbh_log_median_var, 4),
    ROUTINE(nbh_queue_new, 0),
    ROUTINE(nbh_queue_take, 1),
    ROUTINE(nbh_tally_new, 0),
    ROUTINE(nbh_tally_add, 3),
    ROUTINE(nbh_count_lines, 1),
    ROUTINE(nbh_cell_medians, 4),
    ROUTINE(nbh_store_new, 1),
    ROUTINE(nbh_set_attribute, 3),
    ROUTINE(nbh_cell_percentiles, 6),
    ROUTINE(nbh_exchange_paths, 2),
    ROUTINE(nbh_sync_paths, 1),
    ROUTINE(nbh_sync_file_system, 1),
    ROUTINE(nbh_paired_differences, 7),
    ROUTINE(nbh_paired_launch_sums, 9),
    ROUTINE(nbh_exit_now, 1),
    ROUTINE(nbh_shift_interval, 6),
    ROUTINE(nbh_launch_test, 4),
    ROUTINE(nbh_round_units, 10),
    ROUTINE(nbh_read_ahead, 1),
    ROUTINE(nbh_read_ahead_tally, 1),
    ROUTINE(nbh_read_ahead_end, 0),
    {NULL, NULL, 0}};

void R_init_nbh_analyze(DllInfo *info) {
    R_registerRoutines(info, NULL, routines, NULL, NULL);
    R_useDynamicSymbols(info, FALSE);
}
