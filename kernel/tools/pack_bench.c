/* nbh-pack-bench: how fast the packings of the kernel copy a layout's
 * elements (make bench: bench/bench-datatypes). One process; for the
 * transpose's blocks and the 3-D halo's faces it times, in GB/s of data,
 * memcpy of the same bytes (the machine's limit), the copy loops (manual),
 * the cache-blocked ones (manual_tiled) and MPI_Pack / MPI_Unpack with the
 * layout's normal description, side by side: REPS rounds, each one pass of
 * every way in turn, so that a machine changing speed slows all alike;
 * each the median over the rounds, and manual_tiled's over memcpy's
 * (tiled/memcpy). Prints the transposing copy's tile (from the caches the
 * machine reports) and whether doubles take AVX registers instead, then
 * one line per layout, side and size. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data_buffers.h"
#include "datatypes/descriptions.h"
#include "datatypes/packing.h"

#define REPS 31

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

enum way { WAY_MEMCPY, WAY_MANUAL, WAY_TILED, WAY_MPI, N_WAYS };
static const char *const way_names[N_WAYS] = {"memcpy", "manual", "manual_tiled", "mpi_pack"};

struct target {
    const struct layout_geometry *g;
    enum side side;        /* send: pack the block; receive: unpack the slot */
    struct run_box box;
    struct description d;
    char *layout, *packed, *copy;
    size_t bytes;
};

/* Seconds of one pass of `way` over the target. */
static double one_pass(struct target *t, enum way way)
{
    int gather = t->side == SIDE_SEND, position = 0;
    double t0 = MPI_Wtime();
    switch (way) {
    case WAY_MEMCPY: memcpy(t->copy, t->packed, t->bytes); break;
    case WAY_MANUAL: copy_box(&t->box, t->layout, t->packed, gather, 0); break;
    case WAY_TILED: copy_box(&t->box, t->layout, t->packed, gather, 1); break;
    default:
        if (gather)
            MPI_Pack(t->layout + t->d.displacement, t->d.count, t->d.type, t->packed, (int)t->bytes, &position,
                     MPI_COMM_SELF);
        else
            MPI_Unpack(t->packed, (int)t->bytes, &position, t->layout + t->d.displacement, t->d.count, t->d.type,
                       MPI_COMM_SELF);
    }
    return MPI_Wtime() - t0;
}

static void measure(const char *what, const struct layout_geometry *g, enum side side, int index, size_t buffer)
{
    struct target t = {.g = g, .side = side};
    (side == SIDE_SEND ? geometry_send_box : geometry_recv_box)(g, index, &t.box);
    describe(g, MPI_DOUBLE, layout_normal(g->params.layout), side, index, &t.d);
    MPI_Type_commit(&t.d.type);
    t.bytes = box_bytes(&t.box);
    t.layout = data_buffer(buffer, NULL);  /* written, aligned: as the kernel's (data_buffers.h) */
    t.packed = data_buffer(t.bytes, NULL);
    t.copy = data_buffer(t.bytes, NULL);
    printf("%-26s %-7s %9.2f", what, side == SIDE_SEND ? "pack" : "unpack", (double)t.bytes / (1 << 20));
    static double seconds[N_WAYS][REPS];
    for (int w = 0; w < N_WAYS; w++)
        one_pass(&t, (enum way)w);  /* first touch */
    for (int r = 0; r < REPS; r++)
        for (int w = 0; w < N_WAYS; w++)
            seconds[w][r] = one_pass(&t, (enum way)w);
    double speed[N_WAYS];
    for (int w = 0; w < N_WAYS; w++) {
        qsort(seconds[w], REPS, sizeof(double), by_value);
        speed[w] = (double)t.bytes / seconds[w][REPS / 2] / 1e9;
        printf(" %12.2f", speed[w]);
    }
    printf(" %14.2f\n", speed[WAY_TILED] / speed[WAY_MEMCPY]);
    data_buffer_free(t.layout), data_buffer_free(t.packed), data_buffer_free(t.copy);
    description_free(&t.d);
}

static struct experiment layout_experiment(enum layout layout, int ndim, long n)
{
    struct experiment e;
    memset(&e, 0, sizeof(e));
    e.datatype = DATATYPE_double;
    e.ndim = ndim;
    e.layout.layout = layout;
    e.layout.constructor = layout_normal(layout);
    if (layout == LAYOUT_halo)
        e.layout.halo_n = n;
    else
        e.layout.matrix_n = n;
    return e;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    long side, pad, group;
    packing_transpose_tile(sizeof(double), &side, &pad, &group);
    printf("transposing copy of doubles: tiles of %ld x %ld (rows padded by %ld) in groups of %ld x %ld, from L1 %ld "
           "B, L2 %ld B, lines of %ld B (sysconf; 0: not reported)\n", side, side, pad, group, group,
           sysconf(_SC_LEVEL1_DCACHE_SIZE), sysconf(_SC_LEVEL2_CACHE_SIZE), sysconf(_SC_LEVEL1_DCACHE_LINESIZE));
    int registers;
    size_t stream_from;
    packing_transpose_registers(&registers, &side, &group, &stream_from);
    if (registers)
        printf("transposed doubles in AVX registers instead: tiles of %ld x %ld in groups of %ld x %ld, streaming "
               "stores from blocks of %.1f MiB (a quarter of the L3)\n", side, side, group, group,
               (double)stream_from / (1 << 20));
    else
        printf("transposed doubles through the tile above (no AVX)\n");
    printf("%-26s %-7s %9s", "layout (doubles)", "side", "MiB");
    for (int w = 0; w < N_WAYS; w++)
        printf(" %12s", way_names[w]);
    printf(" %14s   (GB/s of data; mpi_pack: MPI_Pack or MPI_Unpack)\n", "tiled/memcpy");
    long orders[] = {512, 1024, 2048, 4096};
    for (size_t i = 0; i < sizeof(orders) / sizeof(orders[0]); i++) {
        /* two processes: b = n/2 rows, blocks of b x b */
        struct experiment e = layout_experiment(LAYOUT_transpose, 0, orders[i]);
        e.msize = layout_derived_msize(&e, 2);
        struct layout_geometry g;
        geometry_make(&e, 2, &g);
        char what[64];
        snprintf(what, sizeof(what), "transpose n=%ld (b=%ld)", orders[i], orders[i] / 2);
        size_t buffer = geometry_buffer_bytes(&g, 2);
        measure(what, &g, SIDE_SEND, 1, buffer);
        measure(what, &g, SIDE_RECV, 1, buffer);
    }
    long edges[] = {64, 128, 256};
    for (size_t i = 0; i < sizeof(edges) / sizeof(edges[0]); i++) {
        struct experiment e = layout_experiment(LAYOUT_halo, 3, edges[i]);
        e.msize = layout_derived_msize(&e, 1);
        struct layout_geometry g;
        geometry_make(&e, 1, &g);
        char what[64];
        size_t buffer = geometry_buffer_bytes(&g, 1);
        for (int dim = 0; dim < 3; dim++) {
            snprintf(what, sizeof(what), "halo 3-D N=%ld face %c", edges[i], "zyx"[dim]);
            measure(what, &g, SIDE_SEND, 2 * dim + 1, buffer);
        }
    }
    MPI_Finalize();
    return 0;
}
