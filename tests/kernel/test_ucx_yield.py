"""build/mpich/libnbh-yield.so (kernel/tools/ucx_yield.c): a progress call
that found nothing yields; on a host with more ranks than cores a wait older
than its spin time sleeps instead, so that the waiting rank leaves the run
queue. Driven by a stand-in UCX whose ucp_worker_progress finds nothing (or
always something), and a program that counts the preload's sched_yield and
nanosleep calls (its own definitions, exported, come before libc's)."""
import os
import subprocess

import pytest

from kernel_runner import BUILD

FAKE_UCP = """
unsigned ucp_worker_progress(void *worker) { (void)worker; return FOUND; }
"""

DRIVER = r"""
#include <stdio.h>
#include <time.h>
unsigned ucp_worker_progress(void *worker);
static long yields, sleeps;
int sched_yield(void) { yields++; return 0; }
int nanosleep(const struct timespec *req, struct timespec *rem) { (void)req; (void)rem; sleeps++; return 0; }
int main(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long calls = 0;
    do {  /* fruitless progress calls for 5 ms: far longer than the spin time */
        ucp_worker_progress(0);
        calls++;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) + 1e-9 * (t.tv_nsec - t0.tv_nsec) < 5e-3);
    printf("%ld %ld %ld\n", calls, yields, sleeps);
    return 0;
}
"""


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    directory = tmp_path_factory.mktemp("ucx_yield")
    built = {}
    for name, found in (("idle", 0), ("busy", 1)):
        lib = directory / name / "libucp.so"
        lib.parent.mkdir()
        (directory / "ucp.c").write_text(FAKE_UCP)
        subprocess.run(["cc", "-shared", "-fPIC", f"-DFOUND={found}", "-o", lib, directory / "ucp.c"], check=True)
        (directory / "driver.c").write_text(DRIVER)
        program = directory / name / "driver"
        subprocess.run(["cc", "-O0", "-rdynamic", "-o", program, directory / "driver.c", f"-L{lib.parent}", "-lucp",
                        f"-Wl,-rpath,{lib.parent}"], check=True)
        built[name] = program
    return built


def counts(program, local_ranks, cores="0", **env_vars):
    preload = BUILD / "mpich" / "libnbh-yield.so"
    assert preload.exists(), f"{preload} is not built (make)"
    env = {k: v for k, v in os.environ.items() if k != "MPI_LOCALNRANKS"}
    env["LD_PRELOAD"] = str(preload)
    env.update(env_vars)
    if local_ranks is not None:
        env["MPI_LOCALNRANKS"] = str(local_ranks)
    out = subprocess.run(["taskset", "-c", cores, program], env=env, capture_output=True, text=True, check=True)
    calls, yields, sleeps = map(int, out.stdout.split())
    return calls, yields, sleeps


def test_an_oversubscribed_wait_sleeps_after_its_spin(programs):
    calls, yields, sleeps = counts(programs["idle"], local_ranks=4)   # 4 ranks, 1 core
    assert yields >= 1                 # the young wait yields first
    assert sleeps >= 1                 # then sleeps, to the end
    assert yields + sleeps == calls    # every fruitless call gives the core away


def test_nbh_yield_sleep_0_keeps_the_yield_alone(programs):
    calls, yields, sleeps = counts(programs["idle"], local_ranks=4, NBH_YIELD_SLEEP="0")
    assert (yields, sleeps) == (calls, 0)


def test_with_a_core_per_rank_it_only_yields(programs):
    calls, yields, sleeps = counts(programs["idle"], local_ranks=1)
    assert (yields, sleeps) == (calls, 0)


def test_without_hydras_rank_count_it_only_yields(programs):
    calls, yields, sleeps = counts(programs["idle"], local_ranks=None)
    assert (yields, sleeps) == (calls, 0)


def test_a_call_that_progressed_neither_yields_nor_sleeps(programs):
    calls, yields, sleeps = counts(programs["busy"], local_ranks=4)
    assert calls > 0 and (yields, sleeps) == (0, 0)
