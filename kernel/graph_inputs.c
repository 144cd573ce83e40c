#include "graph_inputs.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data_buffers.h"
#include "topologies/graph.h"

/* Every process has its own verdict (a repeated edge is seen only by its
 * ends); all agree on the smallest key and take that process's message. */
static int agree(int key, char *error, size_t size, MPI_Comm base)
{
    int rank;
    MPI_Comm_rank(base, &rank);
    struct {
        int key;
        int rank;
    } mine = {key, rank}, first;
    MPI_Allreduce(&mine, &first, 1, MPI_2INT, MPI_MINLOC, base);
    if (first.key == INT_MAX)
        return 0;
    int length = rank == first.rank ? (int)strlen(error) + 1 : 0;
    MPI_Bcast(&length, 1, MPI_INT, first.rank, base);
    if ((size_t)length > size)
        length = (int)size;
    MPI_Bcast(error, length, MPI_CHAR, first.rank, base);
    error[size - 1] = '\0';
    return -1;
}

static int uses_edge_counts(const struct experiment *e)
{
    const struct operation_info *o = &operation_table[e->op];
    return *o->variant && (strcmp(o->family, "neighbor") == 0 || strcmp(o->family, "p2p") == 0 ||
                            strcmp(o->family, "node_aware") == 0);
}

/* This process's problem with experiment e on its rows, or 0. */
static int buffers_fit(const char *input_path, const struct experiment *e, const struct graph_rows *rows,
                       int rank, const struct input_limits *lim, char *error, size_t size)
{
    const struct operation_info *o = &operation_table[e->op];
    if (!o->moves_data)
        return 0;
    double elements = (double)(e->msize / datatype_table[e->datatype].size);
    double bytes = buffer_bytes(e->op, e->msize, rows->indegree, rows->outdegree, lim->nprocs);
    double largest = elements;  /* elements of the largest count or displacement */
    if (uses_edge_counts(e)) {
        int alltoall = strcmp(o->pattern, "alltoall") == 0;
        /* allgather: every block at most the file's largest count */
        double in = alltoall ? (double)rows->in_entries : (double)rows->indegree * rows->largest_count;
        double out = alltoall ? (double)rows->out_entries : rows->largest_count;
        bytes = (in + out) * (double)e->msize;
        largest = (in > out ? in : out) * elements;
    }
    if (bytes > lim->max_memory)
        snprintf(error, size, "%s:%d: column msize: %ld bytes per entry need %.0f bytes of buffers on "
                 "process %d of graph %s, over the limit of %.0f (--max-memory)", input_path, e->line,
                 e->msize, bytes, rank, e->graph, lim->max_memory);
    else if (largest > INT_MAX)
        snprintf(error, size, "%s:%d: column msize: process %d of graph %s would need %.0f elements in one "
                 "count or displacement, more than an MPI int holds", input_path, e->line, rank, e->graph,
                 largest);
    else
        return 0;
    return 1;
}

int graph_inputs_check(const char *input_path, const struct input *in, const struct input_limits *limits,
                       MPI_Comm base, char *error, size_t size)
{
    int rank, status = 0, ndistinct = 0;
    MPI_Comm_rank(base, &rank);
    const char **distinct = malloc(sizeof(char *) * (size_t)(in->count + 1));
    for (int i = 0; i < in->count && status == 0; i++) {
        const struct experiment *e = &in->experiments[i];
        if (e->topology != TOPOLOGY_graph)
            continue;
        int seen = 0;  /* each file is read once; its experiments are checked together */
        for (int k = 0; k < ndistinct && !seen; k++)
            seen = strcmp(distinct[k], e->graph) == 0;
        if (seen)
            continue;
        distinct[ndistinct++] = e->graph;
        struct graph_rows rows;
        int line = graph_read(e->graph, rank, limits->nprocs, limits->max_degree, &rows, error, size);
        if (line != 0) {
            size_t used = strlen(error);
            snprintf(error + used, size - used, " (graph of %s:%d)", input_path, e->line);
        }
        int key = line == 0 ? INT_MAX : line < 0 ? 0 : line;
        if (agree(key, error, size, base) != 0) {
            graph_rows_free(&rows);
            status = -1;
            break;
        }
        int problem = INT_MAX;
        for (int k = i; k < in->count && problem == INT_MAX; k++) {
            const struct experiment *x = &in->experiments[k];
            if (x->topology == TOPOLOGY_graph && strcmp(x->graph, e->graph) == 0 &&
                buffers_fit(input_path, x, &rows, rank, limits, error, size))
                problem = k;
        }
        graph_rows_free(&rows);
        status = agree(problem, error, size, base);
    }
    free(distinct);
    return status;
}
