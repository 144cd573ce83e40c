#include "host_layout.h"

#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What each process tells rank 0 about itself. */
struct process_place {
    char name[MPI_MAX_PROCESSOR_NAME];
    unsigned char cpus[sizeof(cpu_set_t)];  /* its affinity mask */
    int cores_online;
};

static void this_process(struct process_place *place)
{
    int len;
    memset(place, 0, sizeof(*place));
    MPI_Get_processor_name(place->name, &len);
    cpu_set_t mask;
    CPU_ZERO(&mask);
    if (sched_getaffinity(0, sizeof(mask), &mask) != 0)
        CPU_ZERO(&mask);  /* unknown: counted from cores_online below */
    memcpy(place->cpus, &mask, sizeof(mask));
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    place->cores_online = online > 0 ? (int)online : 0;
}

static int json_safe(unsigned char c)
{
    return c >= 0x20 && c != '"' && c != '\\';
}

/* One host: the ranks of all processes with the same name as process r,
 * marked done, with the union of their masks. */
static void write_host(FILE *f, const struct process_place *all, int p, int r, char *done)
{
    const char *name = all[r].name;
    cpu_set_t cores;
    CPU_ZERO(&cores);
    int online = 0;
    fputs("{\"name\": \"", f);
    for (const char *c = name; *c; c++)
        fputc(json_safe((unsigned char)*c) ? *c : '?', f);
    fputs("\", \"ranks\": \"", f);
    int first_run = 1;
    for (int s = r; s < p; s++) {
        if (done[s] || strcmp(name, all[s].name) != 0)
            continue;
        int e = s;
        while (e + 1 < p && !done[e + 1] && strcmp(name, all[e + 1].name) == 0)
            e++;
        for (int i = s; i <= e; i++) {
            cpu_set_t mask;
            memcpy(&mask, all[i].cpus, sizeof(mask));
            CPU_OR(&cores, &cores, &mask);
            if (all[i].cores_online > online)
                online = all[i].cores_online;
            done[i] = 1;
        }
        fprintf(f, first_run ? "%d" : ",%d", s);
        if (e > s)
            fprintf(f, "-%d", e);
        first_run = 0;
        s = e;
    }
    int usable = CPU_COUNT(&cores);
    fprintf(f, "\", \"cores\": %d, \"cores_online\": %d}", usable ? usable : online, online);
}

char *host_layout_json(MPI_Comm comm)
{
    int rank, p;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &p);
    struct process_place mine;
    this_process(&mine);
    struct process_place *all = rank == 0 ? malloc(sizeof(*all) * (size_t)p) : NULL;
    MPI_Gather(&mine, (int)sizeof(mine), MPI_BYTE, all, (int)sizeof(mine), MPI_BYTE, 0, comm);
    if (rank != 0)
        return NULL;
    char *buffer;
    size_t size;
    FILE *f = open_memstream(&buffer, &size);
    char *done = calloc((size_t)p, 1);
    fputc('[', f);
    for (int r = 0, first = 1; r < p; r++) {
        if (done[r])
            continue;
        if (!first)
            fputs(", ", f);
        write_host(f, all, p, r, done);
        first = 0;
    }
    fputc(']', f);
    fclose(f);
    free(done);
    free(all);
    return buffer;
}
