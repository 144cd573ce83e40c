/* Busy work between the start and the completion of an operation: a 64-bit
 * countdown in inline assembly that the compiler can neither remove nor
 * shorten. The loop starts on a 32-byte boundary wherever it is inlined:
 * a two-instruction loop runs at a speed that depends on where its jump
 * lies (on x86 cores with the JCC erratum's fix, a jump on a 32-byte
 * boundary leaves the micro-op cache), and the calibration's copy
 * (busy_work.c) and the timing loop's must run alike. Unaligned, the
 * timing loop's copy ran at half the calibrated rate in one build (20 ms
 * of work took 37-74 ms) and at the calibrated rate in another. */
#ifndef NBH_BUSY_WORK_H
#define NBH_BUSY_WORK_H

#include <stdint.h>

static inline void busy_countdown(uint64_t w)
{
    if (w == 0)
        return;
#if defined(__x86_64__)
    __asm__ __volatile__(".p2align 5\n1:\n\tdec %0\n\tjnz 1b" : "+r"(w) : : "cc");
#elif defined(__aarch64__)
    __asm__ __volatile__(".p2align 5\n1:\n\tsubs %0, %0, #1\n\tb.ne 1b" : "+r"(w) : : "cc");
#else
    volatile uint64_t v = w;
    while (v)
        v = v - 1;
#endif
}

/* Countdown steps per microsecond on this core: the fastest of repeated
 * timed countdowns, so that preemption on a busy machine does not count. */
double calibrate_countdown_rate(void);

/* Countdown steps for `us` microseconds at `rate` steps per microsecond. */
uint64_t countdown_steps(double us, double rate);

#endif
