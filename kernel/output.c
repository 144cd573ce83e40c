#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seeds.h"

void output_path(const char *prefix, const char *suffix, char *out, size_t size)
{
    snprintf(out, size, "%s%s", prefix, suffix);
}

static int create_new(const char *path, char *error, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        snprintf(error, size, "%s: cannot create: %s%s", path, strerror(errno),
                 errno == EEXIST ? " (results are never overwritten; choose another prefix)" : "");
    return fd;
}

static int write_all(int fd, const char *data, size_t size)
{
    while (size > 0) {
        ssize_t n = write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        data += n;
        size -= (size_t)n;
    }
    return 0;
}

/* A side file PREFIX+suffix with its CSV header, never one that exists. */
static FILE *create_table(const char *prefix, const char *suffix, const char *header, char *error,
                          size_t size)
{
    char path[4200];
    output_path(prefix, suffix, path, sizeof(path));
    int fd = create_new(path, error, size);
    if (fd < 0)
        return NULL;
    FILE *f = fdopen(fd, "w");
    fputs(header, f);
    fflush(f);
    return f;
}

int output_open(struct output *o, const char *prefix, int validate, int dump_lists, char *error,
                size_t size)
{
    char path[4200];
    memset(o, 0, sizeof(*o));
    snprintf(o->prefix, sizeof(o->prefix), "%s", prefix);
    o->results = -1;
    output_path(prefix, ".results.csv", path, sizeof(path));
    if ((o->results = create_new(path, error, size)) < 0)
        return -1;
    const char *header = "id,rep,seconds,work_seconds\n";
    if (write_all(o->results, header, strlen(header)) < 0) {
        snprintf(error, size, "%s: cannot write: %s", path, strerror(errno));
        return -1;
    }
    if (validate && !(o->findings = create_table(prefix, ".findings.csv",
                                                 "id,op,topology,kind,rank,slot,expected_rank,"
                                                 "expected_name,got_rank,got_name,reps\n", error, size)))
        return -1;
    if (dump_lists && !(o->lists = create_table(prefix, ".lists.csv",
                                                "id,rank,comm_rank,list,position,neighbor\n", error, size)))
        return -1;
    return 0;
}

int output_results(struct output *o, const struct experiment *e, const double *seconds,
                   const double *work_seconds)
{
    size_t capacity = (size_t)e->nrep * 72 + 1, used = 0;
    char *text = malloc(capacity);
    for (long i = 0; i < e->nrep; i++)
        used += (size_t)snprintf(text + used, capacity - used, "%ld,%ld,%.9e,%.9e\n", e->id, i, seconds[i],
                                 work_seconds[i]);
    /* One write: a process killed after it returns loses nothing of this
     * experiment, and one killed before leaves no partial experiment. */
    int status = write_all(o->results, text, used);
    free(text);
    return status;
}

void output_seeds(struct output *o, const struct experiment *e, int nprocs)
{
    if (!o->seeds) {
        char path[4200];
        output_path(o->prefix, ".seeds.csv", path, sizeof(path));
        o->seeds = fopen(path, "w");
        if (!o->seeds)
            return;
        fprintf(o->seeds, "id,rank,seed\n");
    }
    for (int r = 0; r < nprocs; r++)
        fprintf(o->seeds, "%ld,%d,%" PRIu64 "\n", e->id, r, process_seed(e->seed, e->id, r));
    fflush(o->seeds);
}

/* A value, or an empty cell for one that was not measured. */
static void cell(FILE *f, double value, const char *format)
{
    fputc(',', f);
    if (value >= 0)
        fprintf(f, format, value);
}

void output_preparation(struct output *o, const struct experiment *e, const struct preparation *p)
{
    char error[512];
    if (!o->preparation &&
        !(o->preparation = create_table(o->prefix, ".preparation.csv",
                                        "id,op,init_seconds,work_reference,work_reference_seconds,"
                                        "work_reference_id,work_factor,work_us\n", error, sizeof(error)))) {
        fprintf(stderr, "nbh-kernel: %s\n", error);
        return;
    }
    const struct operation_info *op = &operation_table[e->op];
    fprintf(o->preparation, "%ld,%s", e->id, op->name);
    cell(o->preparation, p->init_seconds, "%.9e");
    fprintf(o->preparation, ",%s", p->reference_seconds >= 0 ? operation_table[op->work_reference].name : "");
    cell(o->preparation, p->reference_seconds, "%.9e");
    fputc(',', o->preparation);
    if (p->reference_seconds >= 0)
        fprintf(o->preparation, "%ld", p->reference_id);
    cell(o->preparation, p->reference_seconds >= 0 ? e->work_factor : -1, "%g");
    cell(o->preparation, p->work_us, "%.3f");
    fputc('\n', o->preparation);
    fflush(o->preparation);
}

void output_close(struct output *o)
{
    if (o->results >= 0)
        close(o->results);
    if (o->findings)
        fclose(o->findings);
    if (o->seeds)
        fclose(o->seeds);
    if (o->lists)
        fclose(o->lists);
    if (o->preparation)
        fclose(o->preparation);
    o->results = -1;
    o->findings = o->seeds = o->lists = o->preparation = NULL;
}
