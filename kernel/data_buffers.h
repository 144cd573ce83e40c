/* What the setups (setups/buffers.c) and the layouts (datatypes/) share,
 * below both: the MPI datatype of a registry datatype, the bytes of
 * buffers an operation needs, and the buffers themselves, every page
 * written. A buffer that is only read would otherwise stay calloc's (or
 * mmap's) untouched pages, which all map to the kernel's one shared zero
 * page: every gather from it would read memory that is always in cache
 * (a strided gather over 64 MiB: 0.43 ms untouched, 1.8 ms after a
 * memset), and the pack-side cost that users pay would be missing. */
#ifndef NBH_DATA_BUFFERS_H
#define NBH_DATA_BUFFERS_H

#include <mpi.h>
#include <stddef.h>

#include "catalog.h"

/* The MPI datatype of registry/datatypes.csv row t. */
MPI_Datatype datatype_mpi(enum datatype t);

/* Bytes of send and receive buffers a process needs for operation op with
 * the given degrees (registry/operations.csv send_blocks, recv_blocks);
 * what input checking compares with the memory limit. */
double buffer_bytes(enum operation op, long msize, long indegree, long outdegree, int nprocs);

/* The most blocks a process sends or receives in operation op. */
double operation_blocks(enum operation op, long indegree, long outdegree, int nprocs);

/* A buffer of `bytes` bytes (one more: never zero-sized) with every byte
 * written (data_fill): its pages are the process's own before anything is
 * timed. Aligned to a cache line, as a user's arrays of that size would
 * be (malloc gives 16 bytes), at a place in its page drawn from `places`
 * (NULL: the page's second cache line): cache line 1 + k of a page for k
 * the next rng_below(places, DATA_BUFFER_PLACES), the page's first line
 * for k = 63. A process allocates the same sizes in the same sequence in
 * every round and launch, and the allocator tends to place them alike: a
 * bias every round, every launch and an A/A twin would share. Drawn per
 * experiment round (NBH_BUFFER_STREAM) it varies as a user's arrays do,
 * and a twin, drawing under its own id, lies elsewhere than its original.
 * Costs at most a page per buffer. Freed with data_buffer_free(). */
#define DATA_BUFFER_ALIGNMENT 64
#define DATA_BUFFER_PAGE 4096
#define DATA_BUFFER_PLACES (DATA_BUFFER_PAGE / DATA_BUFFER_ALIGNMENT)
/* Keeps the places' stream apart from the orders' and the delays'. */
#define NBH_BUFFER_STREAM 0x2545f4914f6cdd1dULL
struct rng;
char *data_buffer(size_t bytes, struct rng *places);
void data_buffer_free(char *buffer);
/* Writes the data pattern over buffer[0 .. bytes): 8-byte words that
 * differ from each other and whose bytes differ, none zero, so a misplaced
 * byte shows (datatypes/description_check.c packs it) and no page is
 * left to the shared zero page. */
void data_fill(char *buffer, size_t bytes);

#endif
