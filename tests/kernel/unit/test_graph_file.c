/* The graph file reader (kernel/topologies/graph_file.c) and the graph
 * orders, without MPI: what one process keeps of a file, and the first
 * problem it reports (the real kernel runs are in test_kernel_graph.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "seeds.h"
#include "tap.h"
#include "topologies/graph.h"
#include "topologies/topology.h"

static char path[] = "/tmp/nbh-graph-unit-XXXXXX";

static int read_as(const char *text, int rank, int p, struct graph_rows *rows, char *error)
{
    FILE *f = fopen(path, "w");
    fputs(text, f);
    fclose(f);
    return graph_read(path, rank, p, 1 << 20, rows, error, 512);
}

/* The message without the file name (it is a temporary file). */
static const char *after_path(const char *error)
{
    size_t n = strlen(path);
    return strncmp(error, path, n) == 0 ? error + n : error;
}

static int ranks_are(const struct graph_edge *edges, int n, const int *want, int nwant)
{
    if (n != nwant)
        return 0;
    for (int i = 0; i < n; i++)
        if (edges[i].rank != want[i])
            return 0;
    return 1;
}

void test_graph_file(void)
{
    int fd = mkstemp(path);
    close(fd);
    struct graph_rows rows;
    char error[512] = "";
    const char *graph = "source,dest,count\r\n0,1,3\n0,2,1\n\n1,0,2\n2,0,7\n2,1,4\n3,0,5\n0,3,5\n";
    int status = read_as(graph, 0, 5, &rows, error);
    CHECK(status == 0 && rows.outdegree == 3 && rows.indegree == 3 && rows.out_entries == 9 &&
              rows.in_entries == 14 && rows.largest_count == 7,
          "process 0 keeps its 3 destinations and 3 sources, CRLF and blank lines allowed (%s)", error);
    int destinations[] = {1, 2, 3}, sources[] = {1, 2, 3};
    CHECK(ranks_are(rows.destinations, rows.outdegree, destinations, 3) &&
              ranks_are(rows.sources, rows.indegree, sources, 3), "in file order (GIVEN)");
    order_graph_edges(ORDER_HEAVY, rows.destinations, rows.outdegree, NULL);
    order_graph_edges(ORDER_HEAVY, rows.sources, rows.indegree, NULL);
    int heavy_out[] = {3, 1, 2}, heavy_in[] = {2, 3, 1};
    CHECK(ranks_are(rows.destinations, 3, heavy_out, 3) && ranks_are(rows.sources, 3, heavy_in, 3),
          "HEAVY: count descending");
    struct rng rng = {process_seed(1, 2, 0)};
    order_graph_edges(ORDER_RAND, rows.destinations, rows.outdegree, &rng);
    int seen = 0, paired = 1;
    for (int j = 0; j < rows.outdegree; j++) {
        const struct graph_edge *x = &rows.destinations[j];
        seen |= 1 << x->rank;
        paired &= (x->rank == 1 && x->count == 3) || (x->rank == 2 && x->count == 1) || (x->rank == 3 && x->count == 5);
    }
    CHECK(seen == 0xe && paired, "RAND permutes the edges with their counts");
    graph_rows_free(&rows);

    status = read_as(graph, 4, 5, &rows, error);
    CHECK(status == 0 && rows.outdegree == 0 && rows.indegree == 0, "a process without rows: degree 0");
    graph_rows_free(&rows);
    int largest[2], of[] = {2, 0};
    CHECK(graph_largest_out_counts(path, of, 2, largest) == 0 && largest[0] == 7 && largest[1] == 5,
          "each source's largest count (its allgather block)");

    status = read_as("source,dest,count\n0,1,1\n2,1,3\n0,1,2\n", 1, 3, &rows, error);
    CHECK(status == 4 && strcmp(after_path(error), ":4: duplicate edge 0 -> 1 (first on line 2)") == 0,
          "a repeated edge is seen by its destination too (%s)", after_path(error));
    graph_rows_free(&rows);
    status = read_as("source,dest,count\n0,1,1\n0,1,2\n1,x,3\n", 0, 3, &rows, error);
    CHECK(status == 3 && strcmp(after_path(error), ":3: duplicate edge 0 -> 1 (first on line 2)") == 0,
          "a repeated edge before a bad row is the first problem (%s)", after_path(error));
    graph_rows_free(&rows);
    status = read_as("source,dest,count\n0,1,1\n1,x,3\n0,1,2\n", 2, 3, &rows, error);
    CHECK(status == 3 && strcmp(after_path(error), ":3: dest 'x' is not an integer") == 0,
          "a process stops at the first bad row (%s)", after_path(error));
    graph_rows_free(&rows);
    status = read_as("source,dest,count\n0,1,3000000000\n", 0, 2, &rows, error);
    CHECK(status == 2 && strcmp(after_path(error), ":2: count 3000000000 is out of range") == 0,
          "a count beyond int (%s)", after_path(error));
    graph_rows_free(&rows);
    status = read_as("source,dest,count\n0,1,1\n0,2,1\n0,3,1\n", 0, 4, &rows, error);
    CHECK(status == 0, "three destinations");
    graph_rows_free(&rows);
    FILE *f = fopen(path, "w");
    fputs("source,dest,count\n0,1,1\n0,2,1\n0,3,1\n", f);
    fclose(f);
    status = graph_read(path, 0, 4, 2, &rows, error, sizeof(error));
    CHECK(status == 4 && strcmp(after_path(error), ":4: process 0 has more than 2 destinations "
                                "(registry/limits.csv: max_degree)") == 0,
          "more neighbors than max_degree (%s)", after_path(error));
    graph_rows_free(&rows);
    unlink(path);
    status = graph_read(path, 0, 4, 2, &rows, error, sizeof(error));
    CHECK(status == -1 && strstr(error, "cannot open the graph file: No such file or directory"),
          "a missing file is a problem of the file as a whole");
}
