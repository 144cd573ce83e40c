/* libnbh-yield.so: LD_PRELOAD'ed into MPICH (ch4:ucx) ranks when there are
 * more processes than cores. UCX busy-polls and never yields, so every
 * collective costs a scheduler tick (~4 ms at 4 ranks on 2 cores); calling
 * sched_yield() whenever a progress call found nothing to do brings that
 * down to microseconds. MPIR_CVAR_POLLS_BEFORE_YIELD has no effect there. */
#include <dlfcn.h>
#include <sched.h>

typedef unsigned (*progress_fn)(void *worker);

unsigned ucp_worker_progress(void *worker);

unsigned ucp_worker_progress(void *worker)
{
    static progress_fn real;
    if (!real)
        real = (progress_fn)dlsym(RTLD_NEXT, "ucp_worker_progress");
    unsigned progressed = real(worker);
    if (progressed == 0)
        sched_yield();
    return progressed;
}
