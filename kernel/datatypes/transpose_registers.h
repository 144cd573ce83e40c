/* The transposing copy of doubles in registers (AVX: 4 x 4 squares, four
 * loads, eight shuffles, four stores), used by the cache-blocked loops
 * (packing.c) for a transposed block where the CPU has AVX: no scratch
 * tile, each element is loaded and stored once. Optionally with streaming
 * (non-temporal) stores, for a destination too large to stay in the L3
 * cache: its lines are then written without being read first. */
#ifndef NBH_TRANSPOSE_REGISTERS_H
#define NBH_TRANSPOSE_REGISTERS_H

#include <stddef.h>
#include <stdint.h>

/* Whether this CPU (and this build) has the AVX copy. */
int transpose_registers_available(void);

/* Doubles (any 8-byte elements: moved bit for bit, never computed with):
 * to[c * ts + r] = from[r * fs + c] for r < rows, c < cols (strides in
 * elements), in tiles of side x side elements (a multiple of 4), the tiles
 * in groups of group x group (a multiple of side); stream: streaming
 * stores, used only where every destination row is 32-byte aligned (to and
 * ts), else plain ones. Rows and columns beyond the last 4 x 4 square one
 * by one. Only where transpose_registers_available(). */
void transpose_registers(const uint64_t *from, size_t fs, uint64_t *to, size_t ts, long rows, long cols, long side,
                         long group, int stream);

#endif
