/* The graph topology's file (docs/kernel.md, "Graph files"): CSV with the
 * header `source,dest,count`, one row per directed edge between processes.
 * Every process streams the file and keeps only its own rows, so a
 * process's memory is O(its degree), never O(edges). */
#ifndef NBH_GRAPH_H
#define NBH_GRAPH_H

#include <stddef.h>

struct graph_edge {
    int rank;   /* the other end */
    int count;  /* entries on the edge (>= 1) */
    int line;   /* row of the graph file */
};

/* One process's rows of a graph file. */
struct graph_rows {
    struct graph_edge *destinations;  /* rows source == rank, in file order */
    struct graph_edge *sources;       /* rows dest == rank, in file order */
    int outdegree, indegree;
    long out_entries, in_entries;     /* sums of the counts */
    int largest_count;                /* over the whole file */
};

/* Reads `path` for process `rank` of p, checking every row. Returns 0, or
 * the line of the first problem found (-1: the file as a whole) with the
 * message "PATH:LINE: reason" in error; rows then hold what was read. */
int graph_read(const char *path, int rank, int p, long max_degree, struct graph_rows *rows,
               char *error, size_t size);
void graph_rows_free(struct graph_rows *rows);

/* For each of the `n` source ranks (any order), the largest count among
 * all of that process's rows (its allgather block). */
int graph_largest_out_counts(const char *path, const int *sources, int n, int *largest);

#endif
