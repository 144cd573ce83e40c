/* libnbh-slowdown.so: a PMPI tool that makes chosen MPI calls slower by a
 * known amount, so that an end-to-end test can plant a guideline violation
 * in a real measurement and check that the analysis finds exactly it.
 * Loaded with LD_PRELOAD (`--set launch_env=LD_PRELOAD=...`); configured by
 *   NBH_SLOWDOWN_OP        neighbor_allgather or neighbor_alltoall
 *   NBH_SLOWDOWN_DATATYPE  byte, int or double (only calls with this type)
 *   NBH_SLOWDOWN_MSIZES    comma-separated bytes per block (only these)
 *   NBH_SLOWDOWN_US        microseconds each matching call sleeps after it
 *   NBH_SLOWDOWN_FACTOR    instead of a sleep: each matching call waits after
 *                          it for (FACTOR - 1) x its own time, a slowdown
 *                          that scales with the machine's speed (1.2: 20 %),
 *                          yielding the core while it waits so that it takes
 *                          no time from the other processes of a shared core
 * and, for a cell slow in some runs only (an adaptive campaign's test that
 * stays undecided):
 *   NBH_SLOWDOWN_SOMETIMES_MSIZES  bytes per block slowed only in runs 1,
 *                                  1 + EVERY, 1 + 2 EVERY, ... (the run number
 *                                  is rNNN in the kernel's -o prefix)
 *   NBH_SLOWDOWN_EVERY             EVERY (default 4) */
#include <mpi.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static struct {
    int ready;
    char op[64];
    MPI_Datatype type;
    long msizes[64];
    int nmsizes;
    long sometimes[64];
    int nsometimes;
    long us;
    double factor;  /* > 1: spin (factor - 1) x the call's time instead of sleeping us */
    int this_run;   /* whether the "sometimes" sizes are slow in this run */
} config;

static int parse_sizes(const char *text, long *sizes)
{
    int n = 0;
    for (char *end, *s = (char *)text; s && *s && n < 64; s = *end ? end + 1 : end)
        sizes[n++] = strtol(s, &end, 10);
    return n;
}

/* The run number of this launch: the digits after the last "-r" of the
 * argument after -o (work/CAMPAIGN/results/1x4-default-r005.a1), or 0. */
static long run_number(void)
{
    static char args[65536];
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f)
        return 0;
    size_t n = fread(args, 1, sizeof(args) - 1, f);
    fclose(f);
    args[n] = '\0';
    for (char *a = args; a < args + n; a += strlen(a) + 1) {
        if (strcmp(a, "-o") != 0 || a + strlen(a) + 1 >= args + n)
            continue;
        const char *prefix = a + strlen(a) + 1, *r = NULL;
        for (const char *p = strstr(prefix, "-r"); p; p = strstr(p + 1, "-r"))
            r = p;
        return r ? strtol(r + 2, NULL, 10) : 0;
    }
    return 0;
}

static void configure(void)
{
    if (config.ready)
        return;
    config.ready = 1;
    const char *op = getenv("NBH_SLOWDOWN_OP"), *type = getenv("NBH_SLOWDOWN_DATATYPE");
    const char *msizes = getenv("NBH_SLOWDOWN_MSIZES"), *us = getenv("NBH_SLOWDOWN_US");
    const char *factor = getenv("NBH_SLOWDOWN_FACTOR");
    if (!op || !msizes || (!us && !factor))
        return;
    config.factor = factor ? atof(factor) : 0;
    strncpy(config.op, op, sizeof(config.op) - 1);
    config.type = !type ? MPI_DATATYPE_NULL
                  : strcmp(type, "int") == 0 ? MPI_INT
                  : strcmp(type, "double") == 0 ? MPI_DOUBLE : MPI_BYTE;
    config.us = us ? atol(us) : 0;
    config.nmsizes = parse_sizes(msizes, config.msizes);
    const char *sometimes = getenv("NBH_SLOWDOWN_SOMETIMES_MSIZES"), *every = getenv("NBH_SLOWDOWN_EVERY");
    if (sometimes) {
        long k = every ? atol(every) : 4, run = run_number();
        config.nsometimes = parse_sizes(sometimes, config.sometimes);
        config.this_run = k > 0 && run > 0 && (run - 1) % k == 0;
    }
}

static int listed(long bytes, const long *sizes, int n)
{
    for (int i = 0; i < n; i++)
        if (sizes[i] == bytes)
            return 1;
    return 0;
}

static void slow_down(const char *op, int count, MPI_Datatype type, double started)
{
    configure();
    if (strcmp(op, config.op) != 0 || (config.type != MPI_DATATYPE_NULL && type != config.type))
        return;
    int size;
    MPI_Type_size(type, &size);
    long bytes = (long)count * size;
    if (listed(bytes, config.msizes, config.nmsizes) ||
        (config.this_run && listed(bytes, config.sometimes, config.nsometimes))) {
        if (config.factor > 1) {
            double now = MPI_Wtime(), until = now + (config.factor - 1) * (now - started);
            while (MPI_Wtime() < until)
                sched_yield();
            return;
        }
        struct timespec pause = {config.us / 1000000, (config.us % 1000000) * 1000};
        nanosleep(&pause, NULL);
    }
}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    double started = MPI_Wtime();
    int status = PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    slow_down("neighbor_allgather", sendcount, sendtype, started);
    return status;
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    double started = MPI_Wtime();
    int status = PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
    slow_down("neighbor_alltoall", sendcount, sendtype, started);
    return status;
}
