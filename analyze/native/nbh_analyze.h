/* The analyzer's C routines (the .c files of analyze/native/): one library,
 * loaded by analyze/native_routines.R. Each speeds up an R function that
 * stays the reference (named in its file); register.c lists them for .Call. */
#ifndef NBH_ANALYZE_H
#define NBH_ANALYZE_H
#include <R.h>
#include <Rinternals.h>
#include <sys/stat.h>

/* scratch.c: blocks that with_scratch frees when routine(data) returns or
 * fails (R_ExecWithCleanup); scratch_alloc gives zeroed memory,
 * scratch_alloc_dirty memory as malloc leaves it (pages never written cost
 * nothing), or they fail with an R error. */
#define SCRATCH_BLOCKS 16
typedef struct {
    void *block[SCRATCH_BLOCKS];
    int count;
} scratch_t;
void *scratch_alloc(scratch_t *scratch, size_t count, size_t size);
void *scratch_alloc_dirty(scratch_t *scratch, size_t count, size_t size);
SEXP with_scratch(SEXP (*routine)(void *), void *data, scratch_t *scratch);
/* A block kept from one call to the next, never freed (slot 0 to
 * REUSED_BLOCKS - 1, one block each, as the last call left it; grown
 * where it is too small): a run's parse buffers, some 10 MB, that a fresh
 * malloc would fault in page by page again for every results file. */
#define REUSED_BLOCKS 4
void *scratch_reused(int slot, size_t count, size_t size);

/* tukey_medians.c */
SEXP nbh_tukey_medians(SEXP id, SEXP seconds, SEXP store, SEXP offset);
/* Sorts s[0..n-1] ascending: insertion sort for a group's few values, R_rsort beyond 64. */
void sort_times(double *s, int n);
/* The run medians of rows (id[i], seconds[i]), i < rows, every id in
 * 0..max_id, as list(id, median, n, p90, p99, below, start, values);
 * rows_of_id[k] is how many rows have id k (length max_id + 1). The times
 * are sorted into `sorted` (rows of them), or into `values` if NULL. */
SEXP run_medians_of(const int *id, const double *seconds, R_xlen_t rows, int max_id,
                    const R_xlen_t *rows_of_id, double *sorted, scratch_t *scratch);

/* The times of rows (id[i], seconds[i]) into grouped, each id's together,
 * ids in order (a counting sort; next, max_id + 1 of them, the caller's
 * scratch), as medians_of_groups takes them; no R call. */
void group_by_id(const int *id, const double *seconds, R_xlen_t rows, int max_id, const R_xlen_t *rows_of_id,
                 double *grouped, R_xlen_t *next);

/* The Tukey medians of every (id, round) group of the rows, as
 * list(id, round, median, n); rows_of_id as for run_medians_of. */
SEXP round_medians_of(const int *id, const int *round, const double *seconds, R_xlen_t rows, int max_id,
                      const R_xlen_t *rows_of_id, scratch_t *scratch);
SEXP nbh_round_medians(SEXP id, SEXP round, SEXP seconds);
/* The same medians of rows whose rounds are known to lie in 1..blocks of
 * their id: group (id, round) is slot first_slot[id] + round - 1 (0-based;
 * first_slot[0..max_id + 1], the slots of id k up to first_slot[k + 1]),
 * rows_of_slot[s] the rows of slot s. The times go to grouped (rows of
 * them), slot after slot, each slot's sorted: so each id's times lie
 * together, in id order, as grouped_run_medians takes them. Each slot's
 * median goes to median[s] (NA where it has no rows) and, if kept is not
 * NULL, the count of the times it kept to kept[s]; next (slots + 1 of
 * them) is the caller's scratch. A counting sort by slot: no sort by (id,
 * round). No R call: read_ahead.c's reader, a fork outside R, calls it. */
void round_medians_in_slots(const int *id, const int *round, const double *seconds, R_xlen_t rows,
                            const R_xlen_t *first_slot, R_xlen_t slots, const R_xlen_t *rows_of_slot, double *grouped,
                            double *median, int *kept, R_xlen_t *next);
/* The fields of run_medians_of's list, one element per id present. */
typedef struct {
    int *id;
    double *median;
    int *n;
    double *p90, *p99;
    int *below, *start;
} run_medians_t;
/* The ids present (rows_of_id[k] > 0, k <= max_id). */
int groups_of(const R_xlen_t *rows_of_id, int max_id);
/* The run medians of times grouped by id (each id's rows_of_id together,
 * ids in order; sorted here in place) into out's arrays, one element per
 * id present; no R call. */
void medians_of_groups(double *grouped, int max_id, const R_xlen_t *rows_of_id, run_medians_t out);
/* run_medians_of's list for `groups` ids, its fields to be filled (their
 * arrays in *fields), with values as its "values". */
SEXP run_medians_list(int groups, SEXP values, run_medians_t *fields);
/* run_medians_of's list of times already grouped by id (medians_of_groups);
 * values is the list's "values" (NULL, or the R vector that holds grouped). */
SEXP grouped_run_medians(double *grouped, SEXP values, R_xlen_t rows, int max_id, const R_xlen_t *rows_of_id);

/* results_file.c: a results file's rows, read by parse_rows into the
 * caller's buffers: id, round and seconds (room for size / 6 + 1 rows, a
 * line having 6 bytes or more), rows_of_id (max_id + 1) and rows_of_round
 * (slots + 1), both zeroed, and first_round (max_id + 2: the slots of id k
 * from first_round[k], nrep[k] > 0 ? blocks[k] : 0 of them). Returns the
 * rows, 0 or -1 for a file that is not clean (or cannot be read); *rounded
 * whether it has a round column. No R call (read_ahead.c). */
typedef struct {
    int *id, *round;
    double *seconds;
    R_xlen_t *rows_of_id, *first_round, *rows_of_round;
} parsed_rows_t;
R_xlen_t read_clean_rows(const char *path, size_t size, const int *nrep, const int *blocks, int max_id,
                         parsed_rows_t *rows, int *rounded);
/* first_round[0..max_id + 1] of nrep and blocks (see read_clean_rows); returns the slots. */
R_xlen_t round_slots_of(const int *nrep, const int *blocks, int max_id, R_xlen_t *first_round);

/* read_ahead.c: the results files read while R starts. */
SEXP nbh_read_ahead(SEXP archives);
SEXP nbh_read_ahead_tally(SEXP wait);
SEXP nbh_read_ahead_end(void);
/* Whether a file was read ahead (by stat identity) with this archive's nrep
 * and blocks, and the caller can take it: it has a store for the times
 * (stored) and, for a file with rounds, for its round medians
 * (rounds_stored); then, in *found, its sorted times (rows), round medians
 * (slots, where it has rounds) and run medians (groups), counted as taken.
 * Every call stops the reader (the workers have begun). */
typedef struct {
    int rounded;   /* whether the file has a round column (else no round medians: slots 0) */
    R_xlen_t rows, slots;
    int groups;
    const double *times, *round_median;
    run_medians_t medians;
} read_ahead_file_t;
int read_ahead_take(const struct stat *file, const int *nrep, const int *blocks, int max_id, int stored,
                    int rounds_stored, read_ahead_file_t *found);

/* round_units.c: the paired tests' units and the round medians by (cell, unit). */
SEXP nbh_round_units(SEXP cell, SEXP run, SEXP round, SEXP median, SEXP store, SEXP offset, SEXP layout,
                     SEXP slot_cell, SEXP slot_round, SEXP stored_run);

/* results_file.c */
SEXP nbh_read_run_medians(SEXP file, SEXP nrep_of_id, SEXP blocks_of_id, SEXP store, SEXP offset, SEXP round_offset);

/* exit_now.c: the analysis ends at once, its files written. */
SEXP nbh_exit_now(SEXP status);

/* value_store.c: a block of doubles shared with the forked workers. */
SEXP nbh_store_new(SEXP size);
/* n values of the store from offset (an R number), or NULL if store is
 * NULL; an R error if they do not fit. */
double *store_region(SEXP store, SEXP offset, R_xlen_t n);
/* The values of a store, or of a double vector, and their number. */
const double *stored_values(SEXP values, R_xlen_t *size);

/* selection.c: the k-th smallest (0-based) of a[0..n-1], a rearranged so
 * that the smaller lie before index k and the larger after it. */
double select_wirth(double *a, R_xlen_t n, R_xlen_t k);
double select_by_partition(double *a, R_xlen_t n, R_xlen_t k);

/* set_attribute.c */
SEXP nbh_set_attribute(SEXP x, SEXP name, SEXP value);

/* cell_percentiles.c */
SEXP nbh_cell_percentiles(SEXP values, SEXP at, SEXP n, SEXP below, SEXP kept, SEXP rows);
/* numpy's percentile ("linear") of the sorted x[0..n-1]; percent 0..100. */
double percentile_of_sorted(const double *x, R_xlen_t n, double percent);

/* rank_sum_test.c */
SEXP nbh_rank_sum_test(SEXP test, SEXP value, SEXP is_x, SEXP n_tests, SEXP both, SEXP exact);

/* signed_rank_test.c */
SEXP nbh_signed_rank_test(SEXP test, SEXP value, SEXP n_tests, SEXP level);

/* log_median_var.c */
SEXP nbh_log_median_var(SEXP x, SEXP i, SEXP j, SEXP p);

/* launch_test.c */
SEXP nbh_launch_test(SEXP test, SEXP run, SEXP value, SEXP n_tests);
/* The per-test sums' columns, each test's empty; test t's (0-based) from
 * its n values, each run's together. */
SEXP launch_sums_new(int n_tests);
void launch_sums_of(SEXP sums, int t, const int *run, const double *value, R_xlen_t n);

/* shift_interval.c */
SEXP nbh_shift_interval(SEXP test, SEXP value, SEXP is_x, SEXP n_tests, SEXP tests, SEXP k);

/* work_queue.c */
SEXP nbh_queue_new(void);
SEXP nbh_queue_take(SEXP queue);

/* progress_tally.c */
SEXP nbh_tally_new(void);
SEXP nbh_tally_add(SEXP tally, SEXP item, SEXP seconds);

/* count_lines.c */
SEXP nbh_count_lines(SEXP file);

/* cell_medians.c */
SEXP nbh_cell_medians(SEXP value, SEXP first, SEXP runs, SEXP cells);

/* exchange_paths.c */
SEXP nbh_exchange_paths(SEXP a, SEXP b);
/* sync_paths.c */
SEXP nbh_sync_paths(SEXP paths);
SEXP nbh_sync_file_system(SEXP path);

/* paired_differences.c */
SEXP nbh_paired_differences(SEXP unit, SEXP value, SEXP first, SEXP rows, SEXP test, SEXP a_cell, SEXP b_cell);
SEXP nbh_paired_launch_sums(SEXP unit, SEXP value, SEXP first, SEXP rows, SEXP test, SEXP a_cell, SEXP b_cell,
                            SEXP run_of_unit, SEXP n_tests);

#endif
