/* The packings' copy loops and the buffers they work on, without MPI:
 * the cache-blocked loops (manual_tiled) move exactly what the plain ones
 * (manual) move, bit for bit, for whole and partial micro tiles, transpose
 * tiles and their groups, of every element size and both directions, and
 * for doubles by every way of the transposing copy; a block that goes to MPI_PROC_NULL alone is not
 * packed; every data buffer is written (no page left to the shared zero
 * page) and aligned to a cache line. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data_buffers.h"
#include "datatypes/layout_buffers.h"
#include "datatypes/packing.h"
#include "seeds.h"
#include "tap.h"

/* Two levels of single elements of `length` bytes: no x ni, the layout's
 * strides so and si (in elements), as the transpose's receive (so = 1) or
 * the 3-D halo's x face (both large). */
static struct run_box two_levels(long no, long ni, size_t so, size_t si, size_t length)
{
    struct run_box b;
    memset(&b, 0, sizeof(b));
    b.offset = 3 * length;  /* not at the buffer's start */
    b.nlevels = 2;
    b.count[0] = no, b.count[1] = ni;
    b.stride[0] = so * length, b.stride[1] = si * length;
    b.nunits = 1;
    b.unit_length[0] = length;
    return b;
}

/* Packs (gather) or unpacks with both loops and compares every byte. */
static int same_as_plain(const struct run_box *b, size_t span, int gather)
{
    size_t bytes = box_bytes(b);
    char *layout_a = data_buffer(span, NULL), *layout_b = data_buffer(span, NULL);
    char *packed_a = data_buffer(bytes, NULL), *packed_b = data_buffer(bytes, NULL);
    for (size_t i = 0; i < span; i++)
        layout_a[i] = layout_b[i] = (char)(i * 7 + 1);
    for (size_t i = 0; i < bytes; i++)
        packed_a[i] = packed_b[i] = (char)(i * 13 + 5);
    copy_box(b, layout_a, packed_a, gather, 0);
    copy_box(b, layout_b, packed_b, gather, 1);
    int same = memcmp(layout_a, layout_b, span) == 0 && memcmp(packed_a, packed_b, bytes) == 0;
    data_buffer_free(layout_a), data_buffer_free(layout_b), data_buffer_free(packed_a), data_buffer_free(packed_b);
    return same;
}

static void test_tiled_copies(void)
{
    size_t lengths[] = {1, 2, 4, 8, 3};  /* 3: the generic element */
    /* whole and partial micro tiles, transpose tiles (at least 8 x 8) and their groups (at
     * least one tile), odd counts (the 2 x 2 moves of doubles) */
    long sizes[][2] = {{64, 64}, {128, 72}, {70, 130}, {5, 9}, {600, 40}, {33, 35}, {300, 260}};
    for (size_t l = 0; l < sizeof(lengths) / sizeof(lengths[0]); l++) {
        int ok = 1;
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            long no = sizes[s][0], ni = sizes[s][1];
            /* the transpose's receive: o along the layout's rows of n = 2 * no + 8 */
            size_t n = 2 * (size_t)no + 8;
            struct run_box transposed = two_levels(no, ni, 1, n, lengths[l]);
            size_t span = (3 + n * (size_t)ni + 1) * lengths[l];
            /* a face across the fastest dimension: both strides large */
            struct run_box face = two_levels(no, ni, n * (size_t)(ni + 2), n, lengths[l]);
            size_t face_span = (3 + n * (size_t)(ni + 2) * (size_t)no + 1) * lengths[l];
            for (int gather = 0; gather <= 1; gather++)
                ok &= same_as_plain(&transposed, span, gather) && same_as_plain(&face, face_span, gather);
        }
        CHECK(ok, "manual_tiled moves what manual moves, elements of %zu bytes (whole and partial tiles, "
              "both directions)", lengths[l]);
    }
}

/* The ways of a transposed block of doubles (packing_transpose_way): the
 * scratch tile, AVX registers with plain and with streaming stores, each
 * bit for bit what the plain loops move, over whole and partial 4 x 4
 * squares, tiles and groups (odd counts); a box aligned to 32 bytes with
 * rows a multiple of 4 doubles apart as well, where the streaming stores
 * are taken (elsewhere the plain ones). Where the CPU lacks AVX, forcing
 * a register way is refused. */
static void test_transpose_ways(void)
{
    long sizes[][2] = {{64, 64}, {5, 9}, {33, 35}, {300, 260}, {517, 3}, {3, 517}, {600, 40}};
    const char *names[] = {"the scratch tile", "registers", "registers with streaming stores"};
    enum transpose_way ways[] = {TRANSPOSE_SCRATCH, TRANSPOSE_REGISTERS, TRANSPOSE_STREAMING};
    int available;
    long side, group;
    size_t stream_from;
    packing_transpose_registers(&available, &side, &group, &stream_from);
    long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);
    l2 = l2 > 0 ? l2 : 524288;
    CHECK(side >= 4 && side % 4 == 0 && group % side == 0 && group * group * 8 <= l2 &&
          4 * group * group * 8 > l2 && stream_from >= (1u << 20),
          "the registers' tiles are whole 4 x 4 squares (%ld), their groups whole tiles (%ld) of which one side "
          "fits the L2 (%ld B) and twice the side would not, streaming from %zu B", side, group, l2, stream_from);
    for (size_t w = 0; w < sizeof(ways) / sizeof(ways[0]); w++) {
        if (!packing_transpose_way(ways[w])) {
            CHECK(!available && ways[w] != TRANSPOSE_SCRATCH, "forcing %s is refused only where the CPU lacks AVX",
                  names[w]);
            continue;
        }
        int ok = 1;
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            long no = sizes[s][0], ni = sizes[s][1];
            size_t n = (2 * (size_t)no + 8 + 3) & ~(size_t)3;  /* rows 32 bytes apart */
            struct run_box transposed = two_levels(no, ni, 1, n + 1, 8);
            size_t span = (3 + (n + 1) * (size_t)ni + 1) * 8;
            struct run_box aligned = two_levels(no, ni, 1, n, 8);
            aligned.offset = 4 * 8;  /* data buffers start on a cache line */
            size_t aligned_span = (4 + n * (size_t)ni + 1) * 8;
            for (int gather = 0; gather <= 1; gather++)
                ok &= same_as_plain(&transposed, span, gather) && same_as_plain(&aligned, aligned_span, gather);
        }
        CHECK(ok, "a transposed block of doubles through %s moves what manual moves (odd counts, both "
              "directions, aligned and not; registers' tiles of %ld in groups of %ld)", names[w], side, group);
    }
    packing_transpose_way(TRANSPOSE_AUTO);
}

/* packing_pack with manual: a block to MPI_PROC_NULL alone stays unpacked. */
static void test_proc_null_blocks_not_packed(void)
{
    struct experiment e;
    memset(&e, 0, sizeof(e));
    e.op = OP_neighbor_alltoall;
    e.topology = TOPOLOGY_cart;
    e.ndim = 1;
    e.datatype = DATATYPE_int;
    e.msize = 4 * 4;
    e.layout = (struct layout_params){LAYOUT_tiled, TYPE_CONSTRUCTOR_contiguous_resized, PACKING_manual, 2, 0, 3,
                                      0, 0, 0};
    struct layout_state s;
    memset(&s, 0, sizeof(s));
    geometry_make(&e, 2, &s.g);
    s.send_bytes = geometry_buffer_bytes(&s.g, 2);
    s.send = data_buffer(s.send_bytes, NULL);
    s.packed = 1;
    s.packed_block = (size_t)e.msize;
    int sent[2] = {0, 1};  /* block 0 to MPI_PROC_NULL (a finite border), block 1 to a process */
    struct run_context ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.e = &e;
    ctx.nsend = 2;
    ctx.block_sent = sent;
    ctx.layout = &s;
    ctx.sendbuf = malloc(2 * s.packed_block);
    memset(ctx.sendbuf, 0x5a, 2 * s.packed_block);
    packing_pack(&ctx);
    int untouched = 1, packed = 0;
    for (size_t i = 0; i < s.packed_block; i++) {
        untouched &= (unsigned char)ctx.sendbuf[i] == 0x5a;
        packed |= (unsigned char)ctx.sendbuf[s.packed_block + i] != 0x5a;
    }
    CHECK(untouched && packed, "manual packs the block to a process and not the one to MPI_PROC_NULL alone");
    free(ctx.sendbuf);
    data_buffer_free(s.send);
}

/* This process's resident set now (/proc/self/statm), KiB. */
static long resident_kib(void)
{
    long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &size, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* A buffer only read afterwards must still be the process's own memory:
 * an untouched page is the shared zero page, which every read finds in
 * the cache, and counts in no resident set. */
static void test_data_buffers(void)
{
    size_t bytes = (size_t)256 << 20;
    long before = resident_kib();
    char *buffer = data_buffer(bytes, NULL);
    long sum = 0;
    for (size_t i = 0; i < bytes; i += 4096)
        sum += buffer[i];
    long grown = resident_kib() - before;
    CHECK(grown >= (long)(bytes >> 10) * 9 / 10, "a 256 MiB data buffer is resident before it is read (grew by %ld "
          "KiB, read sum %ld)", grown, sum);
    int nonzero = 1;
    for (size_t i = 0; i < bytes; i += 4093)
        nonzero &= buffer[i] != 0;
    CHECK(nonzero && (uintptr_t)buffer % DATA_BUFFER_ALIGNMENT == 0,
          "every byte of the pattern is non-zero, the buffer aligned to %d bytes", DATA_BUFFER_ALIGNMENT);
    data_buffer_free(buffer);
}

/* Where a buffer lies in its page is drawn (data_buffers.h): cache line
 * 1 + k of the page for the next draw k of the stream, every place taken,
 * the same stream giving the same places; the pattern is written from the
 * buffer's first byte whatever its place. */
static void test_buffer_places(void)
{
    struct rng places = {2017}, again = {2017};
    int seen[DATA_BUFFER_PLACES] = {0}, as_drawn = 1, aligned = 1, same = 1;
    for (int i = 0; i < 2000; i++) {
        char *a = data_buffer(100, &places), *b = data_buffer(100, &again);
        size_t place = (size_t)((uintptr_t)a % DATA_BUFFER_PAGE);
        aligned &= (uintptr_t)a % DATA_BUFFER_ALIGNMENT == 0;
        same &= place == (size_t)((uintptr_t)b % DATA_BUFFER_PAGE);
        seen[place / DATA_BUFFER_ALIGNMENT] = 1;
        data_buffer_free(a), data_buffer_free(b);
    }
    struct rng stream = {99}, drawn = {99};
    for (int i = 0; i < 200; i++) {
        char *a = data_buffer(64 * 1024, &stream);
        size_t k = (size_t)rng_below(&drawn, DATA_BUFFER_PLACES);
        as_drawn &= (uintptr_t)a % DATA_BUFFER_PAGE == (DATA_BUFFER_ALIGNMENT * (1 + k)) % DATA_BUFFER_PAGE;
        char plain[64 * 1024 + 1];
        data_fill(plain, sizeof(plain));
        as_drawn &= memcmp(a, plain, sizeof(plain)) == 0;
        data_buffer_free(a);
    }
    int every = 1;
    for (int k = 0; k < DATA_BUFFER_PLACES; k++)
        every &= seen[k];
    CHECK(aligned && every, "data buffers lie at every one of the %d cache lines of a page, each aligned",
          DATA_BUFFER_PLACES);
    CHECK(same, "the same stream of places gives the same places");
    CHECK(as_drawn, "a buffer lies at cache line 1 + k of its page, k the stream's next rng_below(%d), its bytes "
          "the pattern", DATA_BUFFER_PLACES);
    data_buffer_free(NULL);
}

void test_packing(void)
{
    test_tiled_copies();
    test_transpose_ways();
    test_proc_null_blocks_not_packed();
    test_data_buffers();
    test_buffer_places();
}
