#include "datatypes/packing.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "datatypes/layout_buffers.h"
#include "datatypes/transpose_registers.h"

/* One run; the common small lengths as single moves, as a user's typed
 * loop would compile. */
static inline void move(char *to, const char *from, size_t n)
{
    switch (n) {
    case 1: *to = *from; return;
    case 2: memcpy(to, from, 2); return;
    case 4: memcpy(to, from, 4); return;
    case 8: memcpy(to, from, 8); return;
    default: memcpy(to, from, n); return;
    }
}

static inline void copy_one(char *layout, char *packed, size_t n, int gather)
{
    if (gather)
        move(packed, layout, n);
    else
        move(layout, packed, n);
}

/* Levels first..last-1 of the box are walked by an odometer; `inner`
 * copies the rest from a base offset, and returns the packed bytes done. */
static size_t walk(const struct run_box *b, int levels, char *layout, char *packed, int gather,
                   size_t (*inner)(const struct run_box *, size_t, char *, char *, int))
{
    long index[NBH_MAX_NDIM] = {0};
    for (int k = 0; k < b->nlevels; k++)
        if (b->count[k] == 0)
            return 0;
    size_t done = 0;
    for (;;) {
        size_t at = b->offset;
        for (int k = 0; k < levels; k++)
            at += (size_t)index[k] * b->stride[k];
        done += inner(b, at, layout, packed + done, gather);
        int k = levels - 1;
        while (k >= 0 && ++index[k] == b->count[k])
            index[k--] = 0;
        if (k < 0)
            return done;
    }
}

/* The innermost level (or one step where there is none), unit by unit. */
static size_t plain_inner(const struct run_box *b, size_t at, char *layout, char *packed, int gather)
{
    int last = b->nlevels - 1;
    long n = last >= 0 ? b->count[last] : 1;
    size_t stride = last >= 0 ? b->stride[last] : 0, done = 0;
    if (b->nunits == 1) {
        size_t length = b->unit_length[0], offset = at + b->unit_offset[0];
        for (long i = 0; i < n; i++, done += length)
            copy_one(layout + offset + (size_t)i * stride, packed + done, length, gather);
        return done;
    }
    for (long i = 0; i < n; i++)
        for (int u = 0; u < b->nunits; u++) {
            copy_one(layout + at + (size_t)i * stride + b->unit_offset[u], packed + done, b->unit_length[u],
                     gather);
            done += b->unit_length[u];
        }
    return done;
}

/* The two innermost levels (outer o, inner i) of single elements,
 * cache-blocked (the packing study's memory-optimized copy): the packed
 * element of (o, i) is o * ni + i, its place in the layout o * so + i * si.
 * The copy runs in micro tiles of one cache line of elements each way
 * (8 x 8 doubles): a tile reads its lines of one side whole into a local
 * array and writes the other side's lines whole from it, so every line is
 * touched in one go and a stride that is a power of two (which maps a
 * column of a matrix onto one cache set: the transpose's rows of n
 * doubles, the packed block's of b) evicts nothing the tile still needs;
 * no padding is needed. The tiles run in blocks of NBH_PACK_BLOCK x
 * NBH_PACK_BLOCK elements, o outer (the pages a block touches stay in the
 * TLB), and the layout's lines NBH_PACK_PREFETCH steps of i ahead are
 * prefetched (they are one per row: no hardware prefetcher follows them).
 * T is the element type, so that the moves are single loads and stores. */
struct tile {
    char *layout, *packed;
    long no, ni;
    size_t so, si, length;  /* strides and length in bytes */
    int gather;
};

#define LINE_BYTES 64

/* One micro tile (o0 .. o0 + ko, i0 .. i0 + ki) of element type T, K of
 * them to a line (KO, KI: ko and ki, constants for a whole tile); the
 * layout side's inner loop runs along its nearer level. */
#define MICRO_LOOPS(KO, KI)                                                                                  \
    if (t->gather) {                                                                                          \
        if (so < si)                                                                                          \
            for (long i = 0; i < (KI); i++)                                                                   \
                for (long o = 0; o < (KO); o++)                                                               \
                    local[o][i] = l[(size_t)o * so + (size_t)i * si];                                         \
        else                                                                                                  \
            for (long o = 0; o < (KO); o++)                                                                   \
                for (long i = 0; i < (KI); i++)                                                               \
                    local[o][i] = l[(size_t)o * so + (size_t)i * si];                                         \
        for (long o = 0; o < (KO); o++)                                                                       \
            for (long i = 0; i < (KI); i++)                                                                   \
                p[(size_t)o * ni + (size_t)i] = local[o][i];                                                  \
    } else {                                                                                                  \
        for (long o = 0; o < (KO); o++)                                                                       \
            for (long i = 0; i < (KI); i++)                                                                   \
                local[o][i] = p[(size_t)o * ni + (size_t)i];                                                  \
        if (so < si)                                                                                          \
            for (long i = 0; i < (KI); i++)                                                                   \
                for (long o = 0; o < (KO); o++)                                                               \
                    l[(size_t)o * so + (size_t)i * si] = local[o][i];                                         \
        else                                                                                                  \
            for (long o = 0; o < (KO); o++)                                                                   \
                for (long i = 0; i < (KI); i++)                                                               \
                    l[(size_t)o * so + (size_t)i * si] = local[o][i];                                         \
    }

/* A whole tile whose layout side runs along o (so = 1). */
#define MICRO_CONTIGUOUS(K)                                                                                  \
    if (t->gather) {                                                                                          \
        for (long i = 0; i < (K); i++)                                                                        \
            for (long o = 0; o < (K); o++)                                                                    \
                local[i][o] = l[(size_t)o + (size_t)i * si];                                                  \
        for (long o = 0; o < (K); o++)                                                                        \
            for (long i = 0; i < (K); i++)                                                                    \
                p[(size_t)o * ni + (size_t)i] = local[i][o];                                                  \
    } else {                                                                                                  \
        for (long o = 0; o < (K); o++)                                                                        \
            for (long i = 0; i < (K); i++)                                                                    \
                local[i][o] = p[(size_t)o * ni + (size_t)i];                                                  \
        for (long i = 0; i < (K); i++)                                                                        \
            for (long o = 0; o < (K); o++)                                                                    \
                l[(size_t)o + (size_t)i * si] = local[i][o];                                                  \
    }

#define MICRO_TILE(T, K)                                                                                      \
    static void micro_##T(const struct tile *t, long o0, long ko, long i0, long ki)                          \
    {                                                                                                         \
        T local[K][K];                                                                                        \
        T *layout = (T *)t->layout, *packed = (T *)t->packed;                                                 \
        size_t so = t->so / sizeof(T), si = t->si / sizeof(T), ni = (size_t)t->ni;                            \
        T *l = layout + (size_t)o0 * so + (size_t)i0 * si, *p = packed + (size_t)o0 * ni + (size_t)i0;        \
        if (ko == (K) && ki == (K) && so == 1) { /* the layout's lines along o: the transpose's rows */      \
            size_t one = 1;                                                                                   \
            (void)one;                                                                                        \
            MICRO_CONTIGUOUS(K)                                                                               \
        } else if (ko == (K) && ki == (K)) {                                                                  \
            MICRO_LOOPS(K, K)                                                                                 \
        } else {                                                                                              \
            MICRO_LOOPS(ko, ki)                                                                               \
        }                                                                                                     \
    }
MICRO_TILE(uint8_t, LINE_BYTES)
MICRO_TILE(uint16_t, LINE_BYTES / 2)
MICRO_TILE(uint32_t, LINE_BYTES / 4)
MICRO_TILE(uint64_t, LINE_BYTES / 8)

/* The tiles of the transposing copy (transposed_T), from the caches the
 * machine reports (sysconf; 32 KiB and 512 KiB with lines of 64 B where it
 * reports none): a square of `side` elements whose rows, padded by one
 * cache line (`pad` elements), fill at most half the L1 data cache, side a
 * power of two and at least a line's worth; and `group`, the side of the
 * squares of tiles done together, a power-of-two multiple of side whose
 * two squares (both sides' data) fit the L2 cache: its rows on each side
 * (one page each, at a matrix's row stride) stay within the TLB's reach
 * as well. The padding puts a column's elements in different cache sets:
 * rows a power-of-two number of bytes apart would all map onto one. */
struct transpose_tile {
    long side, pad, group;
};

static struct transpose_tile transpose_tile(size_t element)
{
    long l1 = sysconf(_SC_LEVEL1_DCACHE_SIZE), l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    long line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    l1 = l1 > 0 ? l1 : 32768;
    l2 = l2 > 0 ? l2 : 524288;
    line = line > 0 ? line : LINE_BYTES;
    struct transpose_tile t = {line / (long)element, line / (long)element, 0};
    if (t.side < 1)
        t.side = t.pad = 1;
    while ((2 * t.side) * (2 * t.side + t.pad) * (long)element <= l1 / 2)
        t.side *= 2;
    t.group = t.side;
    while (2 * (2 * t.group) * (2 * t.group) * (long)element <= l2)
        t.group *= 2;
    return t;
}

void packing_transpose_tile(size_t element, long *side, long *pad, long *group)
{
    struct transpose_tile t = transpose_tile(element);
    *side = t.side, *pad = t.pad, *group = t.group;
}

/* The L3 cache's bytes: the kernel's own report first (sysfs), which in a
 * virtual machine gives the part the guest sees where sysconf's (from the
 * CPU's identification) may give the whole socket's (here 32 MiB against
 * 256 MiB); 8 MiB where neither reports one. */
static long l3_bytes(void)
{
    for (int index = 0; index < 8; index++) {
        char path[80];
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/level", index);
        FILE *f = fopen(path, "r");
        if (!f)
            break;
        int level = 0;
        int got = fscanf(f, "%d", &level);
        fclose(f);
        if (got != 1 || level != 3)
            continue;
        snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cache/index%d/size", index);
        long size = 0;
        char unit = 0;
        if ((f = fopen(path, "r"))) {
            got = fscanf(f, "%ld%c", &size, &unit);
            fclose(f);
            if (got >= 1 && size > 0)
                return size * (unit == 'K' ? 1024L : unit == 'M' ? 1048576L : 1L);
        }
    }
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    return l3 > 0 ? l3 : 8L << 20;
}

/* The transposing copy of doubles in registers (transpose_registers.c):
 * tiles of two cache lines of elements each way (16 x 16 doubles), in
 * groups the largest power-of-two multiple of the tile whose square of one
 * side's data fits the L2 cache (256 x 256 doubles in 512 KiB), and
 * streaming stores where the destination block is a quarter of the L3 or
 * more (the L3 is shared with the other buffers of the exchange, and on a
 * virtual machine with its neighbours: such a block's lines are not in it
 * when they are written, and a plain store reads each first). Measured on
 * this project's VM (docs/datatypes.md "Speed"). */
struct register_tile {
    long side, group;
    size_t stream_from;
};

static struct register_tile register_tile(void)
{
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE), line = sysconf(_SC_LEVEL1_DCACHE_LINESIZE);
    l2 = l2 > 0 ? l2 : 524288;
    line = line > 0 ? line : LINE_BYTES;
    struct register_tile t = {2 * line / 8, 0, (size_t)l3_bytes() / 4};
    t.side = t.side < 4 ? 4 : t.side & ~3L;
    t.group = t.side;
    while ((2 * t.group) * (2 * t.group) * 8 <= l2)
        t.group *= 2;
    return t;
}

static enum transpose_way forced_way = TRANSPOSE_AUTO;

int packing_transpose_way(enum transpose_way way)
{
    if (way != TRANSPOSE_AUTO && way != TRANSPOSE_SCRATCH && !transpose_registers_available())
        return 0;
    forced_way = way;
    return 1;
}

void packing_transpose_registers(int *available, long *side, long *group, size_t *stream_from)
{
    struct register_tile t = register_tile();
    *available = transpose_registers_available();
    *side = t.side, *group = t.group, *stream_from = t.stream_from;
}

/* A transposed block of 8-byte elements in registers; 0 where the scratch
 * tile is to copy it (no AVX, or forced). */
static int transposed_registers(const struct tile *t)
{
    static int available = -1;
    static struct register_tile tile;
    if (available < 0) {
        available = transpose_registers_available();
        tile = register_tile();
    }
    if (!available || forced_way == TRANSPOSE_SCRATCH)
        return 0;
    size_t bytes = (size_t)t->no * (size_t)t->ni * sizeof(uint64_t);
    int stream = forced_way == TRANSPOSE_STREAMING || (forced_way == TRANSPOSE_AUTO && bytes >= tile.stream_from);
    if (forced_way == TRANSPOSE_REGISTERS)
        stream = 0;
    size_t si = t->si / sizeof(uint64_t), ni = (size_t)t->ni;
    if (t->gather)  /* layout rows i (elements o) to packed rows o */
        transpose_registers((const uint64_t *)t->layout, si, (uint64_t *)t->packed, ni, t->ni, t->no, tile.side,
                            tile.group, stream);
    else  /* packed rows o (elements i) to layout rows i */
        transpose_registers((const uint64_t *)t->packed, ni, (uint64_t *)t->layout, si, t->no, t->ni, tile.side,
                            tile.group, stream);
    return 1;
}

/* The scratch square of a transposing copy: S[o * row + i] holds packed
 * element (oo + o, ii + i) of the tile. */
struct scratch_tile {
    long ko, ki, row;
};

/* Moves a tile between the scratch square and the layout's rows (layout
 * element (o, i) at l[i * si + o]): to the layout (scatter), or from it.
 * T is the element type; with SSE2, doubles move in 2 x 2 squares (two
 * loads, two shuffles, two stores for four elements), the rest one by one. */
#define SCRATCH_MOVES(T)                                                                                      \
    static void scatter_##T(const T *S, struct scratch_tile t, T *l, size_t si)                              \
    {                                                                                                         \
        long i = 0;                                                                                           \
        SCATTER_PAIRS_##T                                                                                     \
        for (; i < t.ki; i++)                                                                                 \
            for (long o = 0; o < t.ko; o++)                                                                   \
                l[(size_t)i * si + (size_t)o] = S[o * t.row + i];                                             \
    }                                                                                                         \
    static void gather_##T(T *S, struct scratch_tile t, const T *l, size_t si)                               \
    {                                                                                                         \
        long i = 0;                                                                                           \
        GATHER_PAIRS_##T                                                                                      \
        for (; i < t.ki; i++)                                                                                 \
            for (long o = 0; o < t.ko; o++)                                                                   \
                S[o * t.row + i] = l[(size_t)i * si + (size_t)o];                                             \
    }

#ifdef __SSE2__
/* Rows i and i + 1 of the layout from scratch columns i and i + 1, two
 * elements of o at a time (S's rows are 16-byte aligned and i even). */
#define SCATTER_PAIRS_uint64_t                                                                                \
    for (; i + 1 < t.ki; i += 2) {                                                                            \
        double *l0 = (double *)(l + (size_t)i * si), *l1 = (double *)(l + (size_t)(i + 1) * si);              \
        long o = 0;                                                                                           \
        for (; o + 1 < t.ko; o += 2) {                                                                        \
            __m128d a = _mm_load_pd((const double *)(S + o * t.row + i));                                     \
            __m128d b = _mm_load_pd((const double *)(S + (o + 1) * t.row + i));                               \
            _mm_storeu_pd(l0 + o, _mm_unpacklo_pd(a, b));                                                     \
            _mm_storeu_pd(l1 + o, _mm_unpackhi_pd(a, b));                                                     \
        }                                                                                                     \
        for (; o < t.ko; o++) {                                                                               \
            ((uint64_t *)l0)[o] = S[o * t.row + i];                                                                \
            ((uint64_t *)l1)[o] = S[o * t.row + i + 1];                                                              \
        }                                                                                                     \
    }
#define GATHER_PAIRS_uint64_t                                                                                 \
    for (; i + 1 < t.ki; i += 2) {                                                                            \
        const double *l0 = (const double *)(l + (size_t)i * si), *l1 = (const double *)(l + (size_t)(i + 1) * si); \
        long o = 0;                                                                                           \
        for (; o + 1 < t.ko; o += 2) {                                                                        \
            __m128d a = _mm_loadu_pd(l0 + o), b = _mm_loadu_pd(l1 + o);                                       \
            _mm_store_pd((double *)(S + o * t.row + i), _mm_unpacklo_pd(a, b));                               \
            _mm_store_pd((double *)(S + (o + 1) * t.row + i), _mm_unpackhi_pd(a, b));                         \
        }                                                                                                     \
        for (; o < t.ko; o++) {                                                                               \
            S[o * t.row + i] = ((const uint64_t *)l0)[o];                                                          \
            S[o * t.row + i + 1] = ((const uint64_t *)l1)[o];                                                        \
        }                                                                                                     \
    }
#else
#define SCATTER_PAIRS_uint64_t
#define GATHER_PAIRS_uint64_t
#endif
#define SCATTER_PAIRS_uint8_t
#define GATHER_PAIRS_uint8_t
#define SCATTER_PAIRS_uint16_t
#define GATHER_PAIRS_uint16_t
#define SCATTER_PAIRS_uint32_t
#define GATHER_PAIRS_uint32_t
SCRATCH_MOVES(uint8_t)
SCRATCH_MOVES(uint16_t)
SCRATCH_MOVES(uint32_t)
SCRATCH_MOVES(uint64_t)

/* Two levels of single elements where the layout side runs along the
 * outer one (so = one element: a transposed block, the transpose's
 * receive): in tiles of side x side elements, each copied through a
 * scratch square with padded rows (transpose_tile) that stays in the L1
 * cache. The packed side is moved by rows of the tile (contiguous runs of
 * `side` elements, memcpy), the layout side by its own rows, which are
 * contiguous runs too; the layout's rows are the outer loop, so that each
 * of a tile's `side` rows is walked from end to end, one run after the
 * other (the hardware prefetcher follows them, and a written line is
 * written whole). T is the element type. */
#define TRANSPOSED(T)                                                                                         \
    static void transposed_##T(const struct tile *t)                                                          \
    {                                                                                                         \
        static T *scratch;                                                                                    \
        static struct transpose_tile tile;                                                                    \
        if (!scratch) {                                                                                       \
            tile = transpose_tile(sizeof(T));                                                                 \
            scratch = aligned_alloc(LINE_BYTES, (size_t)(tile.side * (tile.side + tile.pad)) * sizeof(T));    \
        }                                                                                                     \
        long side = tile.side, row = tile.side + tile.pad, group = tile.group;                                \
        T *layout = (T *)t->layout, *packed = (T *)t->packed;                                                 \
        size_t si = t->si / sizeof(T), ni = (size_t)t->ni;                                                    \
        for (long go = 0; go < t->no; go += group)                                                            \
            for (long gi = 0; gi < t->ni; gi += group) {                                                      \
                long eo = go + group < t->no ? go + group : t->no, ei = gi + group < t->ni ? gi + group : t->ni; \
                for (long ii = gi; ii < ei; ii += side) {                                                     \
                    long ki = ii + side < ei ? side : ei - ii;                                                \
                    for (long oo = go; oo < eo; oo += side) {                                                 \
                        struct scratch_tile s = {oo + side < eo ? side : eo - oo, ki, row};                   \
                        T *p = packed + (size_t)oo * ni + (size_t)ii, *l = layout + (size_t)ii * si + (size_t)oo; \
                        if (t->gather) {                                                                      \
                            gather_##T(scratch, s, l, si);                                                    \
                            for (long o = 0; o < s.ko; o++)                                                   \
                                memcpy(p + (size_t)o * ni, scratch + o * row, sizeof(T) * (size_t)ki);        \
                        } else {                                                                              \
                            for (long o = 0; o < s.ko; o++)                                                   \
                                memcpy(scratch + o * row, p + (size_t)o * ni, sizeof(T) * (size_t)ki);        \
                            scatter_##T(scratch, s, l, si);                                                   \
                        }                                                                                     \
                    }                                                                                         \
                }                                                                                             \
            }                                                                                                 \
    }
TRANSPOSED(uint8_t)
TRANSPOSED(uint16_t)
TRANSPOSED(uint32_t)
TRANSPOSED(uint64_t)

/* Any other element length, one element at a time. */
static void micro_generic(const struct tile *t, long o0, long ko, long i0, long ki)
{
    for (long o = o0; o < o0 + ko; o++)
        for (long i = i0; i < i0 + ki; i++)
            copy_one(t->layout + (size_t)o * t->so + (size_t)i * t->si,
                     t->packed + ((size_t)o * (size_t)t->ni + (size_t)i) * t->length, t->length, t->gather);
}

static size_t tiled_inner(const struct run_box *b, size_t at, char *layout, char *packed, int gather)
{
    int outer = b->nlevels - 2, inner = b->nlevels - 1;
    struct tile t = {layout + at + b->unit_offset[0], packed, b->count[outer], b->count[inner], b->stride[outer],
                     b->stride[inner], b->unit_length[0], gather};
    void (*micro)(const struct tile *, long, long, long, long) = micro_generic;
    size_t n = t.length;
    long k = 1;
    if ((n == 1 || n == 2 || n == 4 || n == 8) && t.so % n == 0 && t.si % n == 0 &&
        (uintptr_t)t.layout % n == 0 && (uintptr_t)t.packed % n == 0) {
        if (t.so == n) {  /* the layout runs along o: a transposed block */
            void (*transposed)(const struct tile *) = n == 8 ? transposed_uint64_t : n == 4 ? transposed_uint32_t
                                                      : n == 2 ? transposed_uint16_t : transposed_uint8_t;
            if (n != 8 || !transposed_registers(&t))
                transposed(&t);
            return (size_t)t.no * (size_t)t.ni * t.length;
        }
        micro = n == 8 ? micro_uint64_t : n == 4 ? micro_uint32_t : n == 2 ? micro_uint16_t : micro_uint8_t;
        k = LINE_BYTES / (long)n;
    }
    for (long oo = 0; oo < t.no; oo += NBH_PACK_BLOCK) {
        long oe = oo + NBH_PACK_BLOCK < t.no ? oo + NBH_PACK_BLOCK : t.no;
        for (long ii = 0; ii < t.ni; ii += NBH_PACK_BLOCK) {
            long ie = ii + NBH_PACK_BLOCK < t.ni ? ii + NBH_PACK_BLOCK : t.ni;
            for (long o = oo; o < oe; o += k) {
                long ko = o + k < oe ? k : oe - o;
                for (long i = ii; i < ie; i += k) {
                    long ahead = i + NBH_PACK_PREFETCH;
                    for (long c = 0; c < k && ahead + c < ie; c++) {
                        const char *line = t.layout + (size_t)o * t.so + (size_t)(ahead + c) * t.si;
                        if (gather)
                            __builtin_prefetch(line, 0);
                        else
                            __builtin_prefetch(line, 1);
                    }
                    micro(&t, o, ko, i, i + k < ie ? k : ie - i);
                }
            }
        }
    }
    return (size_t)t.no * (size_t)t.ni * t.length;
}

void copy_box(const struct run_box *box, char *layout, char *packed, int gather, int tiled)
{
    if (tiled && box->nlevels >= 2 && box->nunits == 1)
        walk(box, box->nlevels - 2, layout, packed, gather, tiled_inner);
    else
        walk(box, box->nlevels > 0 ? box->nlevels - 1 : 0, layout, packed, gather, plain_inner);
}

void packing_pack(struct run_context *ctx)
{
    struct layout_state *s = ctx->layout;
    if (!s || !s->packed)
        return;
    for (int j = 0; j < ctx->nsend; j++) {
        if (!ctx->block_sent[j])  /* to MPI_PROC_NULL: the library skips it too */
            continue;
        char *to = ctx->sendbuf + (size_t)j * s->packed_block;
        if (ctx->e->layout.packing == PACKING_mpi_pack) {
            const struct description *d = &s->sends[j];
            int position = 0;
            MPI_Pack(s->send + d->displacement, d->count, d->type, to, (int)s->packed_block, &position, ctx->comm);
        } else {
            struct run_box box;
            geometry_send_box(&s->g, j, &box);
            copy_box(&box, s->send, to, 1, ctx->e->layout.packing == PACKING_manual_tiled);
        }
    }
}

void packing_unpack(struct run_context *ctx)
{
    struct layout_state *s = ctx->layout;
    if (!s || !s->packed)
        return;
    for (int k = 0; k < ctx->nrecv; k++) {
        if (ctx->slot_senders[k] == MPI_PROC_NULL)
            continue;
        char *from = ctx->recvbuf + (size_t)k * s->packed_block;
        if (ctx->e->layout.packing == PACKING_mpi_pack) {
            const struct description *d = &s->recvs[k];
            int position = 0;
            MPI_Unpack(from, (int)s->packed_block, &position, s->recv + d->displacement, d->count, d->type, ctx->comm);
        } else {
            struct run_box box;
            geometry_recv_box(&s->g, k, &box);
            copy_box(&box, s->recv, from, 0, ctx->e->layout.packing == PACKING_manual_tiled);
        }
    }
}
