#include "input.h"

#include <ctype.h>
#include <limits.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datatypes/geometry.h"
#include "closest_name.h"
#include "setups/setup.h"
#include "topologies/dims.h"
#include "topologies/topology.h"

#define MAX_FIELDS 64

struct parser {
    const char *path;
    size_t folder_length;          /* of path's folder, with its '/'; 0: none */
    const struct input_limits *limits;
    int line;                      /* current line number, from 1 */
    int column_of[N_PARAMETERS];   /* field index of each parameter */
    int parameter_of[MAX_FIELDS];  /* parameter of each field */
    int nfields;
    char *error;
    size_t error_size;
};

static int fail(struct parser *p, const char *column, const char *format, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, format);
    vsnprintf(reason, sizeof(reason), format, ap);
    va_end(ap);
    if (column)
        snprintf(p->error, p->error_size, "%s:%d: column %s: %s", p->path, p->line, column, reason);
    else
        snprintf(p->error, p->error_size, "%s:%d: %s", p->path, p->line, reason);
    return -1;
}

/* A line of printable ASCII and tabs, ended by LF or CRLF; anything else
 * is reported at its column: the header's name for that field once the
 * header is known. No message ever echoes a control character. */
static int check_text(struct parser *p, const char *line, size_t size, int header_known,
                      char header[][64])
{
    int field = 0;
    for (size_t i = 0; i < size; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c == ',')
            field++;
        if (c == '\r' && i + 1 < size)
            return fail(p, NULL, "a carriage return (CR, 0x0d) inside the line: the file has CR-only "
                        "line ends (old Mac); write LF or CRLF line ends");
        if (c == '\t' || c == '\r' || (c >= 0x20 && c < 0x7f))
            continue;
        char column[80];
        if (header_known && field < p->nfields)
            snprintf(column, sizeof(column), "%s", header[field]);
        else
            snprintf(column, sizeof(column), "%d", field + 1);
        return fail(p, column, "byte 0x%02x: binary data, not a CSV text file", c);
    }
    return 0;
}

/* Splits a line (modified in place) at commas, trimming blanks. */
static int split(char *line, char **fields)
{
    int n = 0;
    for (char *s = line;; s++) {
        char *end = strchr(s, ',');
        if (end)
            *end = '\0';
        while (*s == ' ' || *s == '\t')
            s++;
        char *t = s + strlen(s);
        while (t > s && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r'))
            *--t = '\0';
        if (n < MAX_FIELDS)
            fields[n] = s;
        n++;
        if (!end)
            return n;
        s = end;
    }
}

static int is_blank_or_comment(const char *line)
{
    while (*line == ' ' || *line == '\t' || *line == '\r')
        line++;
    return *line == '\0' || *line == '#';
}

/* Parameters that came after the first inputs were written: a header
 * without work_factor means no work factor; one without graph and weights
 * has no graph experiment; one without the layout's columns moves
 * contiguous data; one without arrival, arrival_us, late_rank and sync
 * starts at the barrier without delays; one without blocks, warmup, twin
 * and twin_of measures each experiment in one round without warm-up and
 * has no twins. Every other parameter must be named. */
static int may_be_absent(int k)
{
    static const int later[] = {PARAMETER_work_factor, PARAMETER_graph,    PARAMETER_weights,    PARAMETER_layout,
                                PARAMETER_type_constructor, PARAMETER_packing, PARAMETER_unit,   PARAMETER_unit2,
                                PARAMETER_stride,      PARAMETER_stride2,  PARAMETER_halo_n,     PARAMETER_matrix_n,
                                PARAMETER_arrival,     PARAMETER_arrival_us, PARAMETER_late_rank, PARAMETER_sync,
                                PARAMETER_blocks,      PARAMETER_first_round, PARAMETER_warmup,  PARAMETER_twin,
                                PARAMETER_twin_of};
    for (size_t i = 0; i < sizeof(later) / sizeof(later[0]); i++)
        if (k == later[i])
            return 1;
    return 0;
}

static int parse_header(struct parser *p, char **fields, int n, char header[][64])
{
    if (n > MAX_FIELDS)
        return fail(p, NULL, "%d columns, more than the %d the kernel knows", n, N_PARAMETERS);
    for (int i = 0; i < N_PARAMETERS; i++)
        p->column_of[i] = -1;
    for (int f = 0; f < n; f++) {
        snprintf(header[f], 64, "%s", fields[f]);
        int k = catalog_find(parameter_table, N_PARAMETERS, sizeof(parameter_table[0]), fields[f]);
        if (k < 0) {
            char hint[160];
            closest_name_hint(fields[f], parameter_table, N_PARAMETERS, sizeof(parameter_table[0]), NULL,
                              "nbhbench list parameters", hint, sizeof(hint));
            return fail(p, fields[f][0] ? fields[f] : "(empty)", "unknown column (%s)", hint);
        }
        if (p->column_of[k] >= 0)
            return fail(p, fields[f], "appears twice in the header");
        p->column_of[k] = f;
        p->parameter_of[f] = k;
    }
    p->nfields = n;
    for (int k = 0; k < N_PARAMETERS; k++)
        if (p->column_of[k] < 0 && !may_be_absent(k))
            return fail(p, parameter_table[k].name, "missing from the header");
    return 0;
}

/* --- cell parsers: 1 parsed, 0 empty, -1 error (reported) --- */

/* An integer within the registry's range for parameter k (and at most
 * `max` where the range depends on another parameter: nfin <= ndim). */
static int parse_long(struct parser *p, int k, const char *s, long max, long *out)
{
    long min = (long)parameter_table[k].min;
    if ((unsigned long long)max > parameter_table[k].max)
        max = (long)parameter_table[k].max;
    if (!*s)
        return 0;
    const char *name = parameter_table[k].name;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (*end || end == s || !(isdigit((unsigned char)*s) || *s == '-' || *s == '+'))
        return fail(p, name, "'%s' is not an integer", s);
    if (errno == ERANGE || v < min || v > max)
        return fail(p, name, "%s is outside %ld..%ld", s, min, max);
    *out = (long)v;
    return 1;
}

static int parse_seed(struct parser *p, const char *s, uint64_t *out)
{
    if (!*s)
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || end == s || !isdigit((unsigned char)*s) || errno == ERANGE)
        return fail(p, "seed", "'%s' is not an unsigned 64-bit integer", s);
    *out = v;
    return 1;
}

static int parse_number(struct parser *p, int k, const char *s, double *out)
{
    if (!*s)
        return 0;
    const char *name = parameter_table[k].name;
    char *end;
    double v = strtod(s, &end);
    if (*end || end == s || !isfinite(v))
        return fail(p, name, "'%s' is not a number", s);
    if (v < 0)
        return fail(p, name, "%s is negative", s);
    if (parameter_table[k].max != NBH_NO_BOUND && v > (double)parameter_table[k].max)
        return fail(p, name, "%s is outside %llu..%llu (registry/parameters.csv)", s,
                    (unsigned long long)parameter_table[k].min, (unsigned long long)parameter_table[k].max);
    *out = v;
    return 1;
}

/* A name of the table; an unknown one is refused with the closest of the
 * names `allowed` (a space-separated list; NULL: all of them). */
static int parse_word(struct parser *p, const char *column, const char *what, const void *table,
                      int n, size_t stride, const char *allowed, const char *s, int *out)
{
    if (!*s)
        return 0;
    int i = catalog_find(table, n, stride, s);
    if (i < 0) {
        char hint[160], listing[64];
        snprintf(listing, sizeof(listing), "nbhbench list %s", column);
        closest_name_hint(s, table, n, stride, allowed, listing, hint, sizeof(hint));
        return fail(p, column, "unknown %s '%s' (%s)", what, s, hint);
    }
    *out = i;
    return 1;
}

#define CELL(name) (p->column_of[PARAMETER_##name] >= 0 ? fields[p->column_of[PARAMETER_##name]] : "")
#define CELL_OF(k) (p->column_of[k] >= 0 ? fields[p->column_of[k]] : "")
#define TRY(x)          \
    do {                \
        if ((x) < 0)    \
            return -1;  \
    } while (0)

/* A parameter that does not apply must be left empty. */
static int must_be_empty(struct parser *p, const char *name, const char *cell, const char *why)
{
    if (*cell)
        return fail(p, name, "'%s' given, but %s does not apply to %s (leave it empty)", cell, name, why);
    return 0;
}

static int required(struct parser *p, int parsed, const char *name, const char *why)
{
    if (parsed == 0)
        return fail(p, name, "empty, but required %s", why);
    return parsed;
}

static int check_grid(struct parser *p, const struct experiment *e)
{
    const struct input_limits *lim = p->limits;
    if (e->topology == TOPOLOGY_graph)
        return 0;  /* degrees and buffers are known once the file is read (graph_inputs.c) */
    long degree = topology_max_degree(e, lim->nprocs, lim->max_degree);
    if (degree < 0)
        return fail(p, e->topology == TOPOLOGY_full ? "topology" : "radius",
                    "%s gives more than %ld neighbors per process", 
                    e->topology == TOPOLOGY_full ? "full" : "this radius", lim->max_degree);
    if (topology_table[e->topology].radius) {
        int dims[NBH_MAX_NDIM], extent = 0;
        tuw_dims_create(lim->nprocs, e->ndim, dims);
        for (int d = 0; d < e->ndim; d++)
            extent = dims[d] > extent ? dims[d] : extent;
        if (e->nfin == e->ndim && extent == 1)
            return fail(p, "radius", "radius %d is impossible on %d process(es): every dimension "
                        "is finite and of extent 1, so no process has a neighbor",
                        e->radius, lim->nprocs);
    }
    double bytes = layout_buffer_bytes(e, degree, lim->nprocs);
    if (bytes > lim->max_memory)
        return fail(p, layout_table[e->layout.layout].msize[0] == 'd' ? layout_table[e->layout.layout].parameters : "msize",
                    "%ld bytes per neighbor need %.0f bytes of buffers per process "
                    "(up to %ld neighbors), over the limit of %.0f (--max-memory)",
                    e->msize, bytes, degree, lim->max_memory);
    char why[256];
    const char *column = displacement_problem(e, degree, lim->nprocs, why, sizeof(why));
    return column ? fail(p, column, "%s", why) : 0;
}

/* graph: the file (required), relative to the input file's folder;
 * weights 0/1, default 0. Both must be empty on other topologies. */
static int parse_graph(struct parser *p, char **fields, struct experiment *e)
{
    const char *cell = CELL(graph);
    if (e->topology != TOPOLOGY_graph) {
        char why[128];
        snprintf(why, sizeof(why), "topology %s", topology_table[e->topology].name);
        TRY(must_be_empty(p, "graph", cell, why));
        return must_be_empty(p, "weights", CELL(weights), why);
    }
    if (!*cell)
        return fail(p, "graph", "empty, but required for topology graph (the graph file)");
    long v = 0;
    TRY(parse_long(p, PARAMETER_weights, CELL(weights), LONG_MAX, &v));
    e->weights = (int)v;
    size_t folder = cell[0] == '/' ? 0 : p->folder_length, length = strlen(cell);
    e->graph = malloc(folder + length + 1);
    memcpy(e->graph, p->path, folder);
    memcpy(e->graph + folder, cell, length + 1);
    return 0;
}

/* The geometry parameters (unit ... matrix_n), each required where the
 * layout takes it and empty elsewhere. */
static int parse_geometry(struct parser *p, char **fields, struct experiment *e)
{
    struct {
        int parameter;
        long *value;
    } geometry[] = {{PARAMETER_unit, &e->layout.unit},     {PARAMETER_unit2, &e->layout.unit2},
                    {PARAMETER_stride, &e->layout.stride}, {PARAMETER_stride2, &e->layout.stride2},
                    {PARAMETER_halo_n, &e->layout.halo_n}, {PARAMETER_matrix_n, &e->layout.matrix_n}};
    const struct layout_info *l = &layout_table[e->layout.layout];
    char why[64], need[64];
    snprintf(why, sizeof(why), "layout %s", l->name);
    snprintf(need, sizeof(need), "for layout %s", l->name);
    for (size_t i = 0; i < sizeof(geometry) / sizeof(geometry[0]); i++) {
        int k = geometry[i].parameter;
        const char *name = parameter_table[k].name, *cell = CELL_OF(k);
        if (catalog_list_has(l->parameters, name))
            TRY(required(p, parse_long(p, k, cell, LONG_MAX, geometry[i].value), name, need));
        else
            TRY(must_be_empty(p, name, cell, why));
    }
    return 0;
}

/* layout, type_constructor (default: the layout's normal one) and packing,
 * and the layout's geometry; on operations that move no data all empty. */
static int parse_layout(struct parser *p, char **fields, struct experiment *e)
{
    int layout = LAYOUT_contiguous, constructor = -1, packing = PACKING_datatype;
    if (!operation_table[e->op].moves_data) {
        char why[64];
        snprintf(why, sizeof(why), "op %s", operation_table[e->op].name);
        int names[] = {PARAMETER_layout, PARAMETER_type_constructor, PARAMETER_packing, PARAMETER_unit,
                       PARAMETER_unit2, PARAMETER_stride, PARAMETER_stride2, PARAMETER_halo_n, PARAMETER_matrix_n};
        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            TRY(must_be_empty(p, parameter_table[names[i]].name, CELL_OF(names[i]), why));
        e->layout = (struct layout_params){LAYOUT_contiguous, TYPE_CONSTRUCTOR_basic, PACKING_datatype, 0, 0, 0, 0, 0, 0};
        return 0;
    }
    TRY(parse_word(p, "layout", "layout", layout_table, N_LAYOUTS, sizeof(layout_table[0]), NULL, CELL(layout),
                   &layout));
    TRY(parse_word(p, "type_constructor", "type constructor", type_constructor_names, N_TYPE_CONSTRUCTORS,
                   sizeof(type_constructor_names[0]), NULL, CELL(type_constructor), &constructor));
    TRY(parse_word(p, "packing", "packing", packing_names, N_PACKINGS, sizeof(packing_names[0]), NULL,
                   CELL(packing), &packing));
    e->layout.layout = (enum layout)layout;
    e->layout.constructor = constructor < 0 ? layout_normal(e->layout.layout) : (enum type_constructor)constructor;
    e->layout.packing = (enum packing)packing;
    return parse_geometry(p, fields, e);
}

/* The arrival pattern and the start (SPEC 8.2), for operations that move
 * data: arrival (default none); arrival_us, required with a pattern and
 * empty with none; late_rank, one_late only, default p/2, below p; sync
 * (default barrier). create runs neither: its repetitions build and free a
 * communicator, which cannot be fitted into windows of a clock. */
static int parse_arrival(struct parser *p, char **fields, struct experiment *e)
{
    int arrival = ARRIVAL_none, sync = SYNC_barrier;
    e->late_rank = NBH_NOT_APPLICABLE;
    if (!operation_table[e->op].moves_data) {
        if (*CELL(sync))
            return fail(p, "sync", "'%s' given, but op %s cannot run in windows of a global clock (each "
                        "repetition builds and frees a communicator): sync applies to operations that move "
                        "data (leave it empty)", CELL(sync), operation_table[e->op].name);
        char why[128];
        snprintf(why, sizeof(why), "op %s", operation_table[e->op].name);
        TRY(must_be_empty(p, "arrival", CELL(arrival), why));
        TRY(must_be_empty(p, "arrival_us", CELL(arrival_us), why));
        TRY(must_be_empty(p, "late_rank", CELL(late_rank), why));
    }
    TRY(parse_word(p, "arrival", "arrival pattern", arrival_names, N_ARRIVALS, sizeof(arrival_names[0]), NULL,
                   CELL(arrival), &arrival));
    TRY(parse_word(p, "sync", "sync", sync_names, N_SYNCS, sizeof(sync_names[0]), NULL, CELL(sync), &sync));
    e->arrival = arrival, e->sync = sync;
    char why[128];
    snprintf(why, sizeof(why), "arrival %s", arrival_names[arrival]);
    if (arrival == ARRIVAL_none)
        TRY(must_be_empty(p, "arrival_us", CELL(arrival_us), why));
    else
        TRY(required(p, parse_number(p, PARAMETER_arrival_us, CELL(arrival_us), &e->arrival_us), "arrival_us",
                     "with an arrival pattern (the maximum delay d in microseconds)"));
    if (arrival != ARRIVAL_one_late)
        return must_be_empty(p, "late_rank", CELL(late_rank), why);
    long late = p->limits->nprocs / 2;
    TRY(parse_long(p, PARAMETER_late_rank, CELL(late_rank), LONG_MAX, &late));
    if (late >= p->limits->nprocs)
        return fail(p, "late_rank", "%ld is not a process: the run has %d process(es) (ranks 0..%d)", late,
                    p->limits->nprocs, p->limits->nprocs - 1);
    e->late_rank = (int)late;
    return 0;
}

/* blocks (default 1, at most nrep: every round needs a repetition),
 * first_round (default 1, at most blocks), warmup (default 0), twin
 * (default 0) and twin_of: required for a twin,
 * empty for an original; that it names an original of the file is
 * checked once every line is read (check_twins). */
static int parse_rounds(struct parser *p, char **fields, struct experiment *e)
{
    e->blocks = 1, e->first_round = 1, e->warmup = 0, e->twin_of = -1;
    TRY(parse_long(p, PARAMETER_blocks, CELL(blocks), LONG_MAX, &e->blocks));
    if (e->blocks > e->nrep)
        return fail(p, "blocks", "%ld rounds for nrep %ld repetitions: every round needs at least one "
                    "repetition (blocks at most nrep)", e->blocks, e->nrep);
    TRY(parse_long(p, PARAMETER_first_round, CELL(first_round), e->blocks, &e->first_round));
    TRY(parse_long(p, PARAMETER_warmup, CELL(warmup), LONG_MAX, &e->warmup));
    long twin = 0;
    TRY(parse_long(p, PARAMETER_twin, CELL(twin), LONG_MAX, &twin));
    e->twin = (int)twin;
    if (!e->twin)
        return must_be_empty(p, "twin_of", CELL(twin_of), "an original (twin 0)");
    return required(p, parse_long(p, PARAMETER_twin_of, CELL(twin_of), LONG_MAX, &e->twin_of), "twin_of",
                    "for a twin (the id of its original)");
}

static int parse_row(struct parser *p, char **fields, struct experiment *e)
{
    long v;
    memset(e, 0, sizeof(*e));
    e->line = p->line;
    TRY(required(p, parse_long(p, PARAMETER_id, CELL(id), LONG_MAX, &e->id), "id", "on every line"));

    int op = 0, topology = 0, constructor = -1, order = -1, datatype = DATATYPE_byte;
    TRY(required(p, parse_word(p, "op", "operation", operation_table, N_OPERATIONS,
                               sizeof(operation_table[0]), NULL, CELL(op), &op), "op", "on every line"));
    TRY(required(p, parse_word(p, "topology", "topology", topology_table, N_TOPOLOGIES,
                               sizeof(topology_table[0]), NULL, CELL(topology), &topology),
                 "topology", "on every line"));
    e->op = op, e->topology = topology;
    const char *unavailable = setup_unavailable(e->op);
    if (unavailable)
        return fail(p, "op", "%s: %s; leave it out (nbhbench generate does)", operation_table[op].name,
                    unavailable);
    const struct topology_info *t = &topology_table[topology];
    const struct operation_info *o = &operation_table[op];
    char why[512];

    /* constructor: one of the topology's; default the first */
    char word[64];
    if (parse_word(p, "constructor", "constructor", constructor_names, N_CONSTRUCTORS,
                   sizeof(constructor_names[0]), t->constructors, CELL(constructor), &constructor) < 0)
        return -1;
    if (constructor < 0) {
        catalog_list_first(t->constructors, word, sizeof(word));
        constructor = catalog_find(constructor_names, N_CONSTRUCTORS, sizeof(constructor_names[0]), word);
    } else if (!catalog_list_has(t->constructors, constructor_names[constructor])) {
        return fail(p, "constructor", "%s cannot build topology %s (it takes: %s)",
                    constructor_names[constructor], t->name, t->constructors);
    }
    e->constructor = constructor;

    /* grid: ndim required, nfin default 0 */
    snprintf(why, sizeof(why), "topology %s", t->name);
    e->ndim = e->nfin = e->radius = NBH_NOT_APPLICABLE;
    if (t->grid) {
        TRY(required(p, parse_long(p, PARAMETER_ndim, CELL(ndim), NBH_MAX_NDIM, &v), "ndim",
                     "for grid topologies"));
        e->ndim = (int)v;
        v = 0;
        TRY(parse_long(p, PARAMETER_nfin, CELL(nfin), e->ndim, &v));
        e->nfin = (int)v;
    } else {
        TRY(must_be_empty(p, "ndim", CELL(ndim), why));
        TRY(must_be_empty(p, "nfin", CELL(nfin), why));
    }
    if (t->radius) {
        v = 1;
        TRY(parse_long(p, PARAMETER_radius, CELL(radius), LONG_MAX, &v));
        e->radius = (int)v;
    } else {
        TRY(must_be_empty(p, "radius", CELL(radius), why));
    }

    /* order: one of the topology's; default the first */
    e->order = NBH_NOT_APPLICABLE;
    if (*t->orders) {
        TRY(parse_word(p, "order", "order", order_names, N_ORDERS, sizeof(order_names[0]), t->orders,
                       CELL(order), &order));
        if (order < 0) {
            catalog_list_first(t->orders, word, sizeof(word));
            order = catalog_find(order_names, N_ORDERS, sizeof(order_names[0]), word);
        } else if (!catalog_list_has(t->orders, order_names[order])) {
            return fail(p, "order", "%s does not apply to topology %s (it takes: %s)",
                        order_names[order], t->name, t->orders);
        }
        e->order = order;
    } else {
        TRY(must_be_empty(p, "order", CELL(order), why));
    }

    v = 0;
    TRY(parse_long(p, PARAMETER_reorder, CELL(reorder), LONG_MAX, &v));
    e->reorder = (int)v;

    /* what moves data: datatype, msize, work_us */
    snprintf(why, sizeof(why), "op %s", o->name);
    if (o->moves_data) {
        TRY(parse_word(p, "datatype", "datatype", datatype_table, N_DATATYPES,
                       sizeof(datatype_table[0]), NULL, CELL(datatype), &datatype));
        e->datatype = datatype;
        TRY(parse_layout(p, fields, e));
        const struct layout_info *l = &layout_table[e->layout.layout];
        if (strcmp(l->msize, "derived") == 0) {  /* from the layout's own parameters, once they are checked */
            snprintf(why, sizeof(why), "layout %s (it gives the bytes per neighbor itself)", l->name);
            TRY(must_be_empty(p, "msize", CELL(msize), why));
            e->msize = 0;
        } else {
            TRY(required(p, parse_long(p, PARAMETER_msize, CELL(msize), LONG_MAX, &e->msize),
                         "msize", "for operations that move data"));
        }
        int size = datatype_table[datatype].size;
        if (e->msize % size)
            return fail(p, "msize", "%ld is not a multiple of the %s size (%d bytes)", e->msize,
                        datatype_table[datatype].name, size);
        if (e->msize / size > 2147483647L)
            return fail(p, "msize", "%ld bytes is more elements than an MPI count holds", e->msize);
        TRY(parse_number(p, PARAMETER_work_us, CELL(work_us), &e->work_us));
        TRY(parse_number(p, PARAMETER_work_factor, CELL(work_factor), &e->work_factor));
        if (e->work_us > 0 && e->work_factor > 0)
            return fail(p, "work_factor", "%s given with work_us %s: give the busy work in microseconds or "
                        "as a factor, not both", CELL(work_factor), CELL(work_us));
        const char *column = layout_problem(e, p->limits->nprocs, why, sizeof(why));
        if (column)
            return fail(p, column, "%s", why);
        if (strcmp(l->msize, "derived") == 0)
            e->msize = layout_derived_msize(e, p->limits->nprocs);
    } else {
        e->datatype = DATATYPE_byte;
        TRY(parse_layout(p, fields, e));
        TRY(must_be_empty(p, "datatype", CELL(datatype), why));
        TRY(must_be_empty(p, "msize", CELL(msize), why));
        TRY(must_be_empty(p, "work_us", CELL(work_us), why));
        TRY(must_be_empty(p, "work_factor", CELL(work_factor), why));
    }

    TRY(required(p, parse_long(p, PARAMETER_nrep, CELL(nrep), LONG_MAX, &e->nrep),
                 "nrep", "on every line"));
    TRY(parse_rounds(p, fields, e));
    TRY(parse_seed(p, CELL(seed), &e->seed));
    TRY(parse_graph(p, fields, e));
    TRY(parse_arrival(p, fields, e));
    return check_grid(p, e);
}

struct id_line {
    long id;
    int line;
};

static int by_id_then_line(const void *a, const void *b)
{
    const struct id_line *x = a, *y = b;
    if (x->id != y->id)
        return (x->id > y->id) - (x->id < y->id);
    return (x->line > y->line) - (x->line < y->line);
}

static int check_unique_ids(struct parser *p, const struct input *in)
{
    struct id_line *ids = malloc(sizeof(*ids) * (size_t)(in->count + 1));
    for (int i = 0; i < in->count; i++)
        ids[i] = (struct id_line){in->experiments[i].id, in->experiments[i].line};
    qsort(ids, (size_t)in->count, sizeof(*ids), by_id_then_line);
    int status = 0;
    for (int i = 1; i < in->count && status == 0; i++) {
        if (ids[i].id == ids[i - 1].id) {
            p->line = ids[i].line;
            status = fail(p, "id", "%ld already used on line %d", ids[i].id, ids[i - 1].line);
        }
    }
    free(ids);
    return status;
}

static int by_id(const void *a, const void *b)
{
    const struct id_line *x = a, *y = b;
    return (x->id > y->id) - (x->id < y->id);
}

/* Every twin's original is an experiment of the file, and no twin. */
static int check_twins(struct parser *p, const struct input *in)
{
    struct id_line *originals = malloc(sizeof(*originals) * (size_t)(in->count + 1));
    int n = 0, status = 0;
    for (int i = 0; i < in->count; i++)
        if (!in->experiments[i].twin)
            originals[n++] = (struct id_line){in->experiments[i].id, in->experiments[i].line};
    qsort(originals, (size_t)n, sizeof(*originals), by_id);
    for (int i = 0; i < in->count && status == 0; i++) {
        const struct experiment *e = &in->experiments[i];
        struct id_line key = {e->twin_of, 0};
        if (e->twin && !bsearch(&key, originals, (size_t)n, sizeof(*originals), by_id)) {
            p->line = e->line;
            status = fail(p, "twin_of", "%ld is no experiment of this file that is an original (twin 0)",
                          e->twin_of);
        }
    }
    free(originals);
    return status;
}

int input_parse(const char *path, const char *text, size_t size, const struct input_limits *limits,
                struct input *out, char *error, size_t error_size)
{
    struct parser p = {.path = path, .limits = limits, .error = error, .error_size = error_size};
    const char *slash = strrchr(path, '/');
    p.folder_length = slash ? (size_t)(slash - path) + 1 : 0;
    char header[MAX_FIELDS][64];
    memset(out, 0, sizeof(*out));
    p.line = 1;
    if (size == 0)
        return fail(&p, NULL, "empty file; expected a header line naming the parameters");

    char *copy = malloc(size + 1);
    memcpy(copy, text, size);
    copy[size] = '\0';
    char *fields[MAX_FIELDS];
    int header_line = 0, capacity = 0, status = 0;
    size_t start = 0;
    for (int number = 1; start < size && status == 0; number++) {
        const char *newline = memchr(text + start, '\n', size - start);
        size_t end = newline ? (size_t)(newline - text) : size;
        p.line = number;
        if ((status = check_text(&p, text + start, end - start, header_line > 0, header)) != 0)
            break;
        char *line = copy + start;
        copy[end] = '\0';
        start = end + 1;
        if (is_blank_or_comment(line))
            continue;
        int n = split(line, fields);
        if (!header_line) {
            status = parse_header(&p, fields, n, header);
            header_line = number;
        } else if (n != p.nfields) {
            const char *column = n < p.nfields ? header[n] : "(extra)";
            status = fail(&p, column, "the line has %d fields, the header %d", n, p.nfields);
        } else {
            if (out->count == capacity) {
                capacity = capacity ? 2 * capacity : 64;
                out->experiments = realloc(out->experiments, sizeof(struct experiment) * (size_t)capacity);
            }
            status = parse_row(&p, fields, &out->experiments[out->count]);
            if (status == 0)
                out->count++;
            else
                free(out->experiments[out->count].graph);
        }
    }
    free(copy);
    if (status == 0 && !header_line)
        status = fail(&p, NULL, "no header line, only comments or blank lines");
    if (status == 0 && out->count == 0)
        status = fail(&p, NULL, "no experiments after the header");
    if (status == 0)
        status = check_unique_ids(&p, out);
    if (status == 0)
        status = check_twins(&p, out);
    if (status != 0)
        input_free(out);
    return status;
}

void input_free(struct input *in)
{
    for (int i = 0; i < in->count; i++)
        free(in->experiments[i].graph);
    free(in->experiments);
    in->experiments = NULL;
    in->count = 0;
}
