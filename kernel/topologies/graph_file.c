/* Reading a graph file (graph.h): streamed row by row, every row checked,
 * only this process's rows kept. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/graph.h"

#define GRAPH_HEADER "source,dest,count"

struct reader {
    const char *path;
    FILE *f;
    int line;
    char *text;
    size_t capacity;
    char *error;
    size_t size;
};

static int fail(struct reader *r, int line, const char *format, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, format);
    vsnprintf(reason, sizeof(reason), format, ap);
    va_end(ap);
    if (line > 0)
        snprintf(r->error, r->size, "%s:%d: %s", r->path, line, reason);
    else
        snprintf(r->error, r->size, "%s: %s", r->path, reason);
    return line > 0 ? line : -1;
}

static void trim(char **s)
{
    while (**s == ' ' || **s == '\t')
        (*s)++;
    char *t = *s + strlen(*s);
    while (t > *s && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r' || t[-1] == '\n'))
        *--t = '\0';
}

/* The next line without its end; NULL at the end of the file. */
static char *next_line(struct reader *r)
{
    ssize_t n = getline(&r->text, &r->capacity, r->f);
    if (n < 0)
        return NULL;
    r->line++;
    char *s = r->text;
    trim(&s);
    return s;
}

static int parse_field(struct reader *r, const char *name, char *s, long *out)
{
    trim(&s);
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || !(isdigit((unsigned char)*s) || *s == '-' || *s == '+'))
        return fail(r, r->line, "%s '%s' is not an integer", name, s);
    if (errno == ERANGE || v > INT_MAX || v < INT_MIN)
        return fail(r, r->line, "%s %s is out of range", name, s);
    *out = v;
    return 0;
}

static int check_rank(struct reader *r, const char *name, long v, int p)
{
    if (v < 0 || v >= p)
        return fail(r, r->line, "%s %ld is not a process: the run has %d process%s (ranks 0..%d)", name, v, p,
                    p == 1 ? "" : "es", p - 1);
    return 0;
}

/* Parses "source,dest,count" into the three numbers, checking each. */
static int parse_row(struct reader *r, char *s, int p, long v[3])
{
    static const char *const names[3] = {"source", "dest", "count"};
    char *field[3] = {s, NULL, NULL};
    int n = 1;
    for (char *c = s; *c; c++) {
        if (*c != ',')
            continue;
        if (n == 3)
            return fail(r, r->line, "more than the 3 fields source,dest,count");
        *c = '\0';
        field[n++] = c + 1;
    }
    if (n != 3)
        return fail(r, r->line, "%d field%s, expected 3 (source,dest,count)", n, n == 1 ? "" : "s");
    for (int i = 0; i < 3; i++)
        if (parse_field(r, names[i], field[i], &v[i]))
            return r->line;
    if (check_rank(r, "source", v[0], p) || check_rank(r, "dest", v[1], p))
        return r->line;
    if (v[0] == v[1])
        return fail(r, r->line, "self edge %ld -> %ld: a process is not its own neighbor", v[0], v[1]);
    if (v[2] < 1)
        return fail(r, r->line, "count %ld: every edge carries at least 1 entry", v[2]);
    return 0;
}

static void append(struct graph_edge **edges, int *n, int *capacity, struct graph_edge edge)
{
    if (*n == *capacity) {
        *capacity = *capacity ? 2 * *capacity : 16;
        *edges = realloc(*edges, sizeof(**edges) * (size_t)*capacity);
    }
    (*edges)[(*n)++] = edge;
}

static int by_rank_then_line(const void *a, const void *b)
{
    const struct graph_edge *x = a, *y = b;
    if (x->rank != y->rank)
        return (x->rank > y->rank) - (x->rank < y->rank);
    return (x->line > y->line) - (x->line < y->line);
}

/* The line of the first repeated edge among `edges` (all from or all to
 * this process), or INT_MAX; *first: where it appeared before. */
static int first_duplicate(const struct graph_edge *edges, int n, int *other, int *first)
{
    struct graph_edge *sorted = malloc(sizeof(*sorted) * (size_t)(n + 1));
    memcpy(sorted, edges, sizeof(*sorted) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof(*sorted), by_rank_then_line);
    int line = INT_MAX;
    for (int i = 1; i < n; i++)
        if (sorted[i].rank == sorted[i - 1].rank && sorted[i].line < line) {
            line = sorted[i].line;
            *other = sorted[i].rank;
            *first = sorted[i - 1].line;
        }
    free(sorted);
    return line;
}

int graph_read(const char *path, int rank, int p, long max_degree, struct graph_rows *rows,
               char *error, size_t size)
{
    memset(rows, 0, sizeof(*rows));
    struct reader r = {.path = path, .error = error, .size = size};
    r.f = fopen(path, "r");
    if (!r.f)
        return fail(&r, 0, "cannot open the graph file: %s", strerror(errno));
    int status = 0, out_capacity = 0, in_capacity = 0;
    char *s = next_line(&r);
    if (!s)
        status = fail(&r, 0, "empty graph file; expected the header " GRAPH_HEADER);
    else if (strcmp(s, "source,dest") == 0)  /* a pattern alone: the v exchanges need each edge's size */
        status = fail(&r, 1, "header 'source,dest': the graph is given without counts; every edge needs its "
                             "count, expected exactly " GRAPH_HEADER);
    else if (strcmp(s, GRAPH_HEADER) != 0)
        status = fail(&r, 1, "header '%.80s', expected exactly " GRAPH_HEADER, s);
    while (status == 0 && (s = next_line(&r)) != NULL) {
        if (!*s)
            continue;
        long v[3];
        if ((status = parse_row(&r, s, p, v)) != 0)
            break;
        struct graph_edge edge = {.count = (int)v[2], .line = r.line};
        if (v[2] > rows->largest_count)
            rows->largest_count = (int)v[2];
        if (v[0] == rank) {
            edge.rank = (int)v[1];
            append(&rows->destinations, &rows->outdegree, &out_capacity, edge);
            rows->out_entries += v[2];
        } else if (v[1] == rank) {
            edge.rank = (int)v[0];
            append(&rows->sources, &rows->indegree, &in_capacity, edge);
            rows->in_entries += v[2];
        }
        if (rows->outdegree > max_degree || rows->indegree > max_degree)
            status = fail(&r, r.line, "process %d has more than %ld %s (registry/limits.csv: max_degree)",
                          rank, max_degree, rows->outdegree > max_degree ? "destinations" : "sources");
    }
    if (status == 0 && ferror(r.f))
        status = fail(&r, 0, "cannot read the graph file: %s", strerror(errno));
    fclose(r.f);
    free(r.text);
    /* A repeated edge is seen by its two ends; report it unless a problem
     * came earlier in the file. */
    int other = 0, first = 0, endpoint_is_source = 1;
    int dup = first_duplicate(rows->destinations, rows->outdegree, &other, &first);
    int other_in = 0, first_in = 0;
    int dup_in = first_duplicate(rows->sources, rows->indegree, &other_in, &first_in);
    if (dup_in < dup) {
        dup = dup_in, other = other_in, first = first_in;
        endpoint_is_source = 0;
    }
    if (dup != INT_MAX && (status == 0 || (status > 0 && dup < status))) {
        int from = endpoint_is_source ? rank : other, to = endpoint_is_source ? other : rank;
        status = fail(&r, dup, "duplicate edge %d -> %d (first on line %d)", from, to, first);
    }
    return status;
}

void graph_rows_free(struct graph_rows *rows)
{
    free(rows->destinations);
    free(rows->sources);
    memset(rows, 0, sizeof(*rows));
}

static int ascending(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int graph_largest_out_counts(const char *path, const int *sources, int n, int *largest)
{
    int *sorted = malloc(sizeof(int) * (size_t)(n + 1)), *best = calloc((size_t)n + 1, sizeof(int));
    memcpy(sorted, sources, sizeof(int) * (size_t)n);
    qsort(sorted, (size_t)n, sizeof(int), ascending);
    char error[8];
    struct reader r = {.path = path, .error = error, .size = sizeof(error)};
    r.f = fopen(path, "r");
    if (!r.f) {
        free(sorted);
        free(best);
        return -1;
    }
    char *s = next_line(&r);  /* the header, checked before */
    while (s && (s = next_line(&r)) != NULL) {
        long v[3];
        if (!*s || parse_row(&r, s, INT_MAX, v) != 0)
            continue;
        int key = (int)v[0];
        int *at = bsearch(&key, sorted, (size_t)n, sizeof(int), ascending);
        if (at && v[2] > best[at - sorted])
            best[at - sorted] = (int)v[2];
    }
    fclose(r.f);
    free(r.text);
    for (int i = 0; i < n; i++) {
        int key = sources[i];
        largest[i] = best[(int *)bsearch(&key, sorted, (size_t)n, sizeof(int), ascending) - sorted];
    }
    free(sorted);
    free(best);
    return 0;
}
