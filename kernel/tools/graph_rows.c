/* nbh-graph-rows FILE P RANK: reads a graph file as process RANK of P does
 * (the kernel's own reader, kernel/topologies/graph_file.c) and prints its
 * degrees and this process's peak memory. For make bench (bench-graphs):
 * a process's memory follows its degree, not the file's number of edges. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "topologies/graph.h"

static long parse_count(const char *s, const char *what)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end || errno || v < 0 || v > (1L << 30)) {
        fprintf(stderr, "nbh-graph-rows: %s '%s' must be an integer in 0..%ld\n", what, s, 1L << 30);
        exit(2);
    }
    return v;
}

/* This process's peak resident memory in KiB (VmHWM: unlike getrusage's
 * ru_maxrss, it starts afresh at exec, so a parent's size does not count). */
static long peak_kib(void)
{
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (status && fgets(line, sizeof(line), status))
        if (strncmp(line, "VmHWM:", 6) == 0)
            kib = strtol(line + 6, NULL, 10);
    if (status)
        fclose(status);
    return kib;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: nbh-graph-rows FILE P RANK\n");
        return 2;
    }
    long p = parse_count(argv[2], "P"), rank = parse_count(argv[3], "RANK");
    struct graph_rows rows;
    char error[4400];
    if (graph_read(argv[1], (int)rank, (int)p, NBH_LIMIT_MAX_DEGREE, &rows, error, sizeof(error)) != 0) {
        fprintf(stderr, "nbh-graph-rows: %s\n", error);
        return 2;
    }
    printf("rank %ld of %ld: outdegree %d, indegree %d, peak memory %ld KiB\n", rank, p, rows.outdegree,
           rows.indegree, peak_kib());
    graph_rows_free(&rows);
    return 0;
}
