#include "data_buffers.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "seeds.h"

#define NBH_MPI_TYPE_ROW(name, mpi_type, size) [DATATYPE_##name] = mpi_type,

MPI_Datatype datatype_mpi(enum datatype t)
{
    const MPI_Datatype types[N_DATATYPES] = {NBH_DATATYPES(NBH_MPI_TYPE_ROW)};
    return types[t];
}

/* How many blocks the registry's send_blocks or recv_blocks word means. */
static double blocks_of(const char *word, long degree, int nprocs)
{
    if (strcmp(word, "degree") == 0)
        return (double)degree;
    if (strcmp(word, "nprocs") == 0)
        return nprocs;
    return strcmp(word, "one") == 0 ? 1 : 0;
}

double operation_blocks(enum operation op, long indegree, long outdegree, int nprocs)
{
    const struct operation_info *o = &operation_table[op];
    double in = blocks_of(o->recv_blocks, indegree, nprocs), out = blocks_of(o->send_blocks, outdegree, nprocs);
    return in > out ? in : out;
}

double buffer_bytes(enum operation op, long msize, long indegree, long outdegree, int nprocs)
{
    const struct operation_info *o = &operation_table[op];
    return (blocks_of(o->recv_blocks, indegree, nprocs) + blocks_of(o->send_blocks, outdegree, nprocs)) *
           (double)msize;
}

/* Word k of the pattern: an odd multiple of k + 1 whose every byte is
 * made non-zero (a word of the golden ratio's multiples, each byte ORed
 * with 1). */
static inline uint64_t pattern_word(uint64_t k)
{
    return ((k + 1) * 0x9e3779b97f4a7c15ull) | 0x0101010101010101ull;
}

void data_fill(char *buffer, size_t bytes)
{
    size_t words = bytes / 8;
    for (size_t k = 0; k < words; k++) {
        uint64_t w = pattern_word(k);
        memcpy(buffer + 8 * k, &w, 8);
    }
    uint64_t last = pattern_word(words);
    memcpy(buffer + 8 * words, &last, bytes - 8 * words);
}

/* The allocation is page-aligned; the buffer starts 1 + k cache lines into
 * it, and the line before the buffer keeps the allocation's address for
 * data_buffer_free. */
char *data_buffer(size_t bytes, struct rng *places)
{
    size_t lead = DATA_BUFFER_ALIGNMENT * (1 + (places ? (size_t)rng_below(places, DATA_BUFFER_PLACES) : 0));
    void *allocation = NULL;
    if (posix_memalign(&allocation, DATA_BUFFER_PAGE, lead + bytes + 1) != 0)
        return NULL;
    char *buffer = (char *)allocation + lead;
    memcpy(buffer - sizeof(allocation), &allocation, sizeof(allocation));
    data_fill(buffer, bytes + 1);
    return buffer;
}

void data_buffer_free(char *buffer)
{
    if (!buffer)
        return;
    void *allocation;
    memcpy(&allocation, buffer - sizeof(allocation), sizeof(allocation));
    free(allocation);
}
