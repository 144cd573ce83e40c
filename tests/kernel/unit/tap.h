/* A tiny TAP producer for the kernel's C unit tests: one "ok N - name" or
 * "not ok N - name" line per check, counted by tests/run. */
#ifndef NBH_TAP_H
#define NBH_TAP_H

#include <stdio.h>

extern int tap_count;
extern int tap_failed;

#define CHECK(condition, ...)                                  \
    do {                                                       \
        int tap_ok_ = (condition);                             \
        printf("%s %d - ", tap_ok_ ? "ok" : "not ok", ++tap_count); \
        printf(__VA_ARGS__);                                   \
        printf("\n");                                          \
        if (!tap_ok_) {                                        \
            tap_failed++;                                      \
            printf("#   failed: %s (%s:%d)\n", #condition, __FILE__, __LINE__); \
        }                                                      \
    } while (0)

/* The test files; each runs its checks. */
void test_dims(void);
void test_offsets(void);
void test_orders(void);
void test_full(void);
void test_graph_file(void);
void test_pairing(void);
void test_input(void);
void test_whole_output(void);
void test_layouts(void);
void test_arrival(void);
void test_closest_name(void);
void test_packing(void);

#endif
