#include "output.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seeds.h"

static const char *const suffixes[] = {".results.csv", ".prov.json", ".cvars.csv", ".findings.csv",
                                       ".seeds.csv", ".lists.csv", ".reorder.csv",
                                       ".preparation.csv", ".ranks.csv", ".delays.csv", ".warmup.csv"};

enum { TABLES = 9 };

/* Every table of O, for what is done to all of them alike. */
static void tables_of(struct output *o, struct table *tables[TABLES])
{
    struct table *all[TABLES] = {&o->results, &o->findings,    &o->seeds, &o->lists, &o->reorder,
                                 &o->preparation, &o->ranks, &o->delays, &o->warmup};
    memcpy(tables, all, sizeof(all));
}

static int create_side_table(struct output *o, struct table *t, const char *suffix, const char *header);

void output_path(const char *prefix, const char *suffix, char *out, size_t size)
{
    snprintf(out, size, "%s%s", prefix, suffix);
}

/* A table PREFIX+suffix with its CSV header (never one that exists), or
 * fd -1 when not wanted. */
static int open_table(struct output *o, struct table *t, int wanted, const char *suffix, const char *header)
{
    t->fd = -1;
    if (!wanted)
        return 0;
    char path[4200];
    output_path(o->prefix, suffix, path, sizeof(path));
    if (table_create(t, path, header, o->error, sizeof(o->error)) != 0) {
        o->error_number = errno;
        return -1;
    }
    return 0;
}

int output_open(struct output *o, const char *prefix, int validate, int dump_lists, int seeds, int ranks,
                int dump_delays)
{
    memset(o, 0, sizeof(*o));
    snprintf(o->prefix, sizeof(o->prefix), "%s", prefix);
    struct table *tables[TABLES];
    tables_of(o, tables);
    for (int i = 0; i < TABLES; i++)
        tables[i]->fd = -1;
    for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
        char path[4200];
        output_path(prefix, suffixes[i], path, sizeof(path));
        if (access(path, F_OK) == 0) {
            snprintf(o->error, sizeof(o->error), "%s: cannot create: File exists (outputs are never "
                     "overwritten; choose another prefix)", path);
            o->error_number = EEXIST;
            return -1;
        }
    }
    o->delay_column = ranks;
    if (open_table(o, &o->results, 1, ".results.csv",
                   ranks ? "id,rep,round,seconds,work_seconds,delay_seconds\n" : "id,rep,round,seconds,work_seconds\n") != 0 ||
        open_table(o, &o->findings, validate, ".findings.csv",
                   "id,op,topology,kind,rank,slot,expected_rank,expected_name,got_rank,got_name,reps\n") != 0 ||
        open_table(o, &o->seeds, seeds, ".seeds.csv", "id,rank,seed\n") != 0 ||
        open_table(o, &o->lists, dump_lists, ".lists.csv", "id,round,rank,comm_rank,list,position,neighbor,count\n") != 0 ||
        open_table(o, &o->ranks, ranks, ".ranks.csv", "id,round,rank,seconds,delay_seconds,role\n") != 0 ||
        open_table(o, &o->delays, dump_delays, ".delays.csv", "id,round,rank,attempt,rep,delay_us\n") != 0) {
        output_discard(o);
        return -1;
    }
    return 0;
}

void output_results(struct output *o, const struct experiment *e, const struct round_slot *slot, long n,
                    const double *seconds, const double *work_seconds, const double *delay_seconds)
{
    size_t capacity = (size_t)n * 110 + 1, used = 0;
    char *text = malloc(capacity);
    for (long i = 0; i < n; i++) {
        used += (size_t)snprintf(text + used, capacity - used, "%ld,%ld,%d,%.9e,%.9e", e->id, slot->first_rep + i,
                                 slot->round, seconds[i], work_seconds[i]);
        if (o->delay_column)
            used += (size_t)snprintf(text + used, capacity - used, ",%.9e", delay_seconds[i]);
        text[used++] = '\n';
    }
    table_append(&o->results, text, used);
    free(text);
}

void output_warmup(struct output *o, const struct experiment *e, int round, long n, const double *seconds,
                   const double *work_seconds)
{
    if (create_side_table(o, &o->warmup, ".warmup.csv", "id,round,rep,seconds,work_seconds\n") != 0)
        return;
    size_t capacity = (size_t)n * 90 + 1, used = 0;
    char *text = malloc(capacity);
    for (long i = 0; i < n; i++)
        used += (size_t)snprintf(text + used, capacity - used, "%ld,%d,%ld,%.9e,%.9e\n", e->id, round,
                                 (round - 1) * e->warmup + i, seconds[i], work_seconds[i]);
    table_append(&o->warmup, text, used);
    free(text);
}

void output_seeds(struct output *o, const struct experiment *e, int nprocs)
{
    char *text = NULL;
    size_t size = 0;
    FILE *rows = open_memstream(&text, &size);
    for (int r = 0; r < nprocs; r++)
        fprintf(rows, "%ld,%d,%" PRIu64 "\n", e->id, r, experiment_seed(e, r));
    fclose(rows);
    table_append(&o->seeds, text, size);
    free(text);
}

int output_end_experiment(struct output *o)
{
    struct table *tables[TABLES];
    tables_of(o, tables);
    int failed = 0;
    for (int i = 0; i < TABLES; i++)
        failed |= table_failed(tables[i]);
    if (!failed) {
        for (int i = 0; i < TABLES; i++)
            table_commit(tables[i]);
        return 0;
    }
    int first = 0;
    for (int i = 0; i < TABLES; i++) {
        char message[sizeof(o->error)];
        int err = table_rollback(tables[i], message, sizeof(message));
        if (err && !first) {
            first = err;
            snprintf(o->error, sizeof(o->error), "%s", message);
        }
    }
    o->error_number = first;
    return first;
}

void output_discard(struct output *o)
{
    struct table *tables[TABLES];
    tables_of(o, tables);
    for (int i = 0; i < TABLES; i++)
        table_discard(tables[i]);
}

/* A value, or an empty cell for one that was not measured. */
static void cell(FILE *f, double value, const char *format)
{
    fputc(',', f);
    if (value >= 0)
        fprintf(f, format, value);
}

/* Creates the lazily made table T (PREFIX+suffix) at its first row; 0, or -1
 * with the reason on stderr (the experiment's other tables go on). */
static int create_side_table(struct output *o, struct table *t, const char *suffix, const char *header)
{
    if (t->fd >= 0)
        return 0;
    char path[4200], error[4400];
    output_path(o->prefix, suffix, path, sizeof(path));
    if (table_create(t, path, header, error, sizeof(error)) != 0) {
        t->fd = -1;
        fprintf(stderr, "nbh-kernel: %s\n", error);
        return -1;
    }
    return 0;
}

void output_reorder(struct output *o, const struct experiment *e, int ranks_changed)
{
    if (create_side_table(o, &o->reorder, ".reorder.csv", "id,ranks_changed\n") != 0)
        return;
    char row[64];
    int length = snprintf(row, sizeof(row), "%ld,%d\n", e->id, ranks_changed);
    table_append(&o->reorder, row, (size_t)length);
}

void output_preparation(struct output *o, const struct experiment *e, int round, const struct preparation *p)
{
    if (create_side_table(o, &o->preparation, ".preparation.csv",
                          "id,round,op,init_seconds,work_reference,work_reference_seconds,"
                          "work_reference_id,work_factor,work_us,type_size,type_extent,commit_seconds,"
                          "type_check,sync,sync_seconds,window_seconds,offset_spread_seconds,start_skew_seconds,"
                          "invalid_reps,reps,construct_seconds,measured_skew_seconds,skew_bound_seconds\n") != 0)
        return;
    char *text = NULL;
    size_t size = 0;
    FILE *row = open_memstream(&text, &size);
    const struct operation_info *op = &operation_table[e->op];
    fprintf(row, "%ld,%d,%s", e->id, round, op->name);
    cell(row, p->init_seconds, "%.9e");
    fprintf(row, ",%s", p->reference_seconds >= 0 ? operation_table[op->work_reference].name : "");
    cell(row, p->reference_seconds, "%.9e");
    fputc(',', row);
    if (p->reference_seconds >= 0)
        fprintf(row, "%ld", p->reference_id);
    cell(row, p->reference_seconds >= 0 ? e->work_factor : -1, "%g");
    cell(row, p->work_us, "%.3f");
    cell(row, p->type_size, "%.0f");
    cell(row, p->type_extent, "%.0f");
    cell(row, p->commit_seconds, "%.9e");
    fprintf(row, ",%s", p->type_check);
    fprintf(row, ",%s", p->sync_seconds >= 0 || p->measured_skew >= 0 ? sync_names[e->sync] : "");
    cell(row, p->sync_seconds, "%.9e");
    cell(row, p->sync_seconds >= 0 ? p->window_seconds : -1, "%.9e");
    cell(row, p->sync_seconds >= 0 ? p->offset_spread : -1, "%.9e");
    cell(row, p->sync_seconds >= 0 ? p->start_skew : -1, "%.9e");
    cell(row, p->sync_seconds >= 0 ? (double)p->invalid : -1, "%.0f");
    fprintf(row, ",%ld", p->reps);
    cell(row, p->construct_seconds, "%.9e");
    cell(row, p->measured_skew, "%.9e");
    cell(row, p->measured_skew >= 0 ? p->skew_bound : -1, "%.9e");
    fputc('\n', row);
    fclose(row);
    table_append(&o->preparation, text, size);
    free(text);
}

void output_ranks(struct output *o, const struct experiment *e, int round, int n, const struct rank_row *rows)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    for (int i = 0; i < n; i++)
        fprintf(f, "%ld,%d,%d,%.9e,%.9e,%s\n", e->id, round, rows[i].rank, rows[i].seconds,
                rows[i].delay_seconds, rows[i].role);
    fclose(f);
    table_append(&o->ranks, text, size);
    free(text);
}

int output_sync(struct output *o)
{
    struct table *tables[TABLES];
    tables_of(o, tables);
    for (int i = 0; i < TABLES; i++) {
        char message[sizeof(o->error)];
        int err = table_sync(tables[i], message, sizeof(message));
        if (err) {
            snprintf(o->error, sizeof(o->error), "%s", message);
            o->error_number = err;
            return err;
        }
    }
    return 0;
}

void output_close(struct output *o)
{
    struct table *tables[TABLES];
    tables_of(o, tables);
    for (int i = 0; i < TABLES; i++)
        table_close(tables[i]);
}
