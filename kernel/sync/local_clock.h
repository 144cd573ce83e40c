/* The clock a process synchronises: MPI_Wtime (local_clock.c). Test builds
 * replace local_clock.c with tests/kernel/test_clock.c, whose clocks run
 * off each other by a known offset and drift and which checks the
 * models against them; the measuring binary never has it. */
#ifndef NBH_LOCAL_CLOCK_H
#define NBH_LOCAL_CLOCK_H

#include <mpi.h>

struct clock_model;

/* This process's clock, seconds. */
double local_clock_now(void);
/* Test builds: on every process of base, how far model m is from the true
 * clock of rank 0, reported by rank 0 (experiment id, when: estimate,
 * resync, end); here nothing. */
void local_clock_audit(MPI_Comm base, const struct clock_model *m, long id, const char *when);
/* Test builds: the process the test forces late stalls before repetition
 * attempt of an experiment; here nothing. */
void local_clock_stall(long attempt);
/* Test builds: called at every look of a wait for a clock start
 * (clock_wait_until): the process the test names is held up there, as a
 * process the scheduler preempts while it spins; here nothing. */
void local_clock_waiting(void);
/* Test builds: the process the test names gets a model that is off by a
 * known amount (what the independent skew measurement must see, and the
 * model's own lateness cannot); here nothing. */
void local_clock_distort(struct clock_model *m);

#endif
