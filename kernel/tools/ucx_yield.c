/* libnbh-yield.so: LD_PRELOAD'ed into MPICH (ch4:ucx) ranks (the MPICH
 * environments' launch_env). UCX busy-polls and never gives the core away:
 * with more ranks than cores every collective costs a scheduler tick
 * (~4 ms at 4 ranks on 2 cores); MPIR_CVAR_POLLS_BEFORE_YIELD has no
 * effect there. A progress call that found nothing to do therefore
 * yields (sched_yield). That is enough on an idle machine, not on a
 * loaded one: a yielding rank stays runnable, and every yield can hand
 * the core to another program's process for a whole time slice, while
 * the rank that has the message to send waits its turn behind both. On
 * a host with more ranks than cores (Hydra's MPI_LOCALNRANKS against the
 * cores this process may use) a wait that is older than
 * NBH_YIELD_SPIN_SECONDS therefore sleeps instead (nanosleep of 1 us,
 * which the kernel's timer slack stretches to ~50 us): the waiting rank
 * leaves the run queue and the ranks with work get the cores. Measured on
 * the demo's experiments at 4 ranks on 2 cores, load average 11-13: a run
 * of 900 repetitions in 20-24 s with sched_yield alone (median 6.4-8.0 ms a
 * repetition), 1.9-3.5 s with the sleep (median 0.16-0.21 ms). With a core
 * per rank (or where MPI_LOCALNRANKS is not set) it only yields, as
 * before: a sleep would add its ~50 us to every wait. NBH_YIELD_SLEEP=0
 * in the ranks' environment keeps the yield alone everywhere (make bench
 * compares the two). */
#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NBH_YIELD_SPIN_SECONDS 10e-6

typedef unsigned (*progress_fn)(void *worker);

unsigned ucp_worker_progress(void *worker);

static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Whether this host runs more of the job's ranks than this process has
 * cores (and sleeping is not turned off). */
static int host_oversubscribed(void)
{
    const char *ranks = getenv("MPI_LOCALNRANKS"), *sleep = getenv("NBH_YIELD_SLEEP");
    if (sleep && strcmp(sleep, "0") == 0)
        return 0;
    cpu_set_t cores;
    if (!ranks || sched_getaffinity(0, sizeof(cores), &cores) != 0)
        return 0;
    return atoi(ranks) > CPU_COUNT(&cores);
}

unsigned ucp_worker_progress(void *worker)
{
    static progress_fn real;
    static int oversubscribed;
    static double idle_since = -1;  /* when the current run of fruitless calls began */
    if (!real) {
        real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
        oversubscribed = host_oversubscribed();
    }
    unsigned progressed = real(worker);
    if (progressed) {
        idle_since = -1;
        return progressed;
    }
    if (!oversubscribed) {
        sched_yield();
        return progressed;
    }
    double now = seconds_now();
    if (idle_since < 0)
        idle_since = now;
    if (now - idle_since < NBH_YIELD_SPIN_SECONDS) {
        sched_yield();
    } else {
        struct timespec nap = {0, 1000};
        nanosleep(&nap, NULL);
    }
    return progressed;
}
