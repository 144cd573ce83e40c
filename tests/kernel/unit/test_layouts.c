/* Layouts without MPI: the blocks, extents and sizes against the studies'
 * formulas (Table 2: every Variant 1 layout spans n + 2n/A elements, every
 * Variant 2 layout 3n), the halo's faces and the transpose's blocks at
 * hand-computed places, the gap check, and the input rules' messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datatypes/geometry.h"
#include "datatypes/layout_buffers.h"
#include "input.h"
#include "tap.h"

static struct experiment static_experiment(enum layout layout, long a, long a2, long b, long b2, long msize)
{
    struct experiment e;
    memset(&e, 0, sizeof(e));
    e.op = OP_neighbor_alltoall;
    e.topology = TOPOLOGY_cart;
    e.ndim = 1;
    e.datatype = layout == LAYOUT_tiled_hetero ? DATATYPE_byte : DATATYPE_int;
    e.msize = msize;
    e.layout = (struct layout_params){layout, layout_normal(layout), PACKING_datatype, a, a2, b, b2, 0, 0};
    return e;
}

/* Table 2 of the datatype study, for unit size A and n elements. */
static void variant(int number, enum layout layout, long a, struct experiment *e, long n)
{
    long v1[N_LAYOUTS][4] = {[LAYOUT_tiled] = {a, 0, a + 2, 0}, [LAYOUT_block] = {a, 0, a + 1, a + 3},
                             [LAYOUT_bucket] = {a - 1, a + 1, a + 2, 0},
                             [LAYOUT_alternating] = {a - 1, a + 1, a + 1, a + 3}};
    long v2[N_LAYOUTS][4] = {[LAYOUT_tiled] = {a, 0, 3 * a, 0}, [LAYOUT_block] = {a, 0, 2 * a, 4 * a},
                             [LAYOUT_bucket] = {a / 2, 3 * a / 2, 3 * a, 0},
                             [LAYOUT_alternating] = {a / 2, 3 * a / 2, 2 * a, 4 * a}};
    long *p = number == 1 ? v1[layout] : v2[layout];
    *e = static_experiment(layout, p[0], p[1], p[2], p[3], n * 4);
}

/* Where the runs of a box lie: (offset, length) pairs, at most max. */
struct collected {
    size_t offset[64], length[64];
    int n;
};

static void collect(size_t offset, size_t length, void *arg)
{
    struct collected *c = arg;
    if (c->n < 64) {
        c->offset[c->n] = offset;
        c->length[c->n] = length;
    }
    c->n++;
}

static struct collected runs_of(const struct run_box *b)
{
    struct collected c = {.n = 0};
    box_for_each(b, collect, &c);
    return c;
}

static void test_table2(void)
{
    enum layout studied[] = {LAYOUT_tiled, LAYOUT_block, LAYOUT_bucket, LAYOUT_alternating};
    long units[] = {2, 10, 100};
    for (int v = 1; v <= 2; v++) {
        for (size_t u = 0; u < sizeof(units) / sizeof(units[0]); u++) {
            long a = units[u], n = 2 * a * 60;  /* a multiple of every block's k */
            int ok = 1;
            for (size_t l = 0; l < sizeof(studied) / sizeof(studied[0]); l++) {
                struct experiment e;
                struct layout_geometry g;
                variant(v, studied[l], a, &e, n);
                char why[256];
                ok &= layout_problem(&e, 2, why, sizeof(why)) == NULL;
                geometry_make(&e, 2, &g);
                long span = (long)(g.neighbor_extent / 4);
                long expected = v == 1 ? n + 2 * n / a : 3 * n;
                ok &= span == expected;
                struct run_box box;
                geometry_send_box(&g, 1, &box);
                ok &= box_bytes(&box) == (size_t)n * 4 && box.offset == (size_t)expected * 4;
            }
            CHECK(ok, "Variant %d, A = %ld: every layout spans %s elements and carries n", v, a,
                  v == 1 ? "n + 2n/A" : "3n");
        }
    }
}

static void test_static_blocks(void)
{
    /* block A=3, B1=4, B2=6 of ints: units at elements 0 and 4, next block at 10 */
    struct experiment e = static_experiment(LAYOUT_block, 3, 0, 4, 6, 2 * 6 * 4);
    struct layout_geometry g;
    geometry_make(&e, 2, &g);
    struct run_box box;
    geometry_send_box(&g, 0, &box);
    struct collected c = runs_of(&box);
    CHECK(c.n == 4 && c.offset[0] == 0 && c.offset[1] == 16 && c.offset[2] == 40 && c.offset[3] == 56 &&
              c.length[0] == 12 && c.length[3] == 12 && g.neighbor_extent == 80,
          "block (3, 4, 6): units at elements 0, 4, 10, 14; 20 elements per neighbor");
    /* bucket A1=1, A2=3, B=4: units at 0 (1) and 4 (3), extent 8 */
    e = static_experiment(LAYOUT_bucket, 1, 3, 4, 0, 4 * 4);
    geometry_make(&e, 2, &g);
    geometry_send_box(&g, 0, &box);
    c = runs_of(&box);
    CHECK(c.n == 2 && c.offset[1] == 16 && c.length[0] == 4 && c.length[1] == 12 && g.neighbor_extent == 32,
          "bucket (1, 3, 4): units of 1 and 3 elements at 0 and 4, extent 2B");
    /* alternating A1=1, B1=2, A2=3, B2=5: extent 7 */
    e = static_experiment(LAYOUT_alternating, 1, 3, 2, 5, 2 * 4 * 4);
    geometry_make(&e, 2, &g);
    geometry_send_box(&g, 0, &box);
    c = runs_of(&box);
    CHECK(c.n == 4 && c.offset[1] == 8 && c.offset[2] == 28 && c.offset[3] == 36 && g.neighbor_extent == 56,
          "alternating (1, 2, 3, 5): units at elements 0, 2, 7, 9; extent B1 + B2");
    /* tiled_hetero A=2, B=3: chars at 0 (2), ints at 3 (8 bytes), doubles at 15 (16), shorts at 39 (4); 45 bytes */
    e = static_experiment(LAYOUT_tiled_hetero, 2, 0, 3, 0, 30);
    geometry_make(&e, 2, &g);
    geometry_send_box(&g, 0, &box);
    c = runs_of(&box);
    CHECK(c.n == 4 && c.offset[1] == 3 && c.offset[2] == 15 && c.offset[3] == 39 && c.length[0] == 2 &&
              c.length[1] == 8 && c.length[2] == 16 && c.length[3] == 4 && g.neighbor_extent == 45,
          "tiled_hetero (2, 3): char, int, double, short at strides of B of their type; 15B bytes");
}

static void test_halo(void)
{
    struct experiment e = static_experiment(LAYOUT_halo, 0, 0, 0, 0, 0);
    e.op = OP_neighbor_alltoallw;
    e.ndim = 2;
    e.layout = (struct layout_params){LAYOUT_halo, TYPE_CONSTRUCTOR_subarray, PACKING_datatype, 0, 0, 0, 0, 4, 0};
    CHECK(layout_derived_msize(&e, 4) == 16, "halo N=4 in 2-D: a face is 4 ints");
    struct layout_geometry g;
    geometry_make(&e, 4, &g);
    CHECK(geometry_buffer_bytes(&g, 4) == 36 * 4, "halo N=4 in 2-D: a 6 x 6 array");
    struct run_box box;
    geometry_send_box(&g, 1, &box);  /* dimension 0, the last interior row: row 4, columns 1..4 */
    struct collected c = runs_of(&box);
    CHECK(c.n == 1 && c.offset[0] == (4 * 6 + 1) * 4 && c.length[0] == 16, "send block 1 is row 4, columns 1..4");
    geometry_recv_box(&g, 2, &box);  /* dimension 1, the ghost column 0, rows 1..4 */
    c = runs_of(&box);
    CHECK(c.n == 4 && c.offset[0] == 6 * 4 && c.offset[3] == 4 * 6 * 4 && c.length[0] == 4,
          "receive slot 2 is column 0, rows 1..4, one element each");
    e.ndim = 3;
    geometry_make(&e, 4, &g);
    geometry_send_box(&g, 5, &box);  /* dimension 2, layer 4: 16 single elements */
    c = runs_of(&box);
    CHECK(c.n == 16 && c.offset[0] == (1 * 36 + 1 * 6 + 4) * 4 && c.offset[1] == (36 + 2 * 6 + 4) * 4 &&
              c.offset[4] == (2 * 36 + 6 + 4) * 4,
          "3-D: send block 5 is the layer x = 4, rows then planes");
    CHECK(layout_derived_msize(&e, 4) == 64, "halo N=4 in 3-D: a face is 16 ints");
}

static void test_transpose(void)
{
    struct experiment e = static_experiment(LAYOUT_transpose, 0, 0, 0, 0, 0);
    e.op = OP_alltoall;
    e.topology = TOPOLOGY_full;
    e.datatype = DATATYPE_double;
    e.layout = (struct layout_params){LAYOUT_transpose, TYPE_CONSTRUCTOR_hvector, PACKING_datatype, 0, 0, 0, 0, 0, 6};
    CHECK(layout_derived_msize(&e, 3) == 4 * 8, "transpose n=6 on 3: a block is 2 x 2 doubles");
    struct layout_geometry g;
    geometry_make(&e, 3, &g);
    struct run_box box;
    geometry_send_box(&g, 2, &box);  /* rows 0, 1; columns 4, 5 */
    struct collected c = runs_of(&box);
    CHECK(c.n == 2 && c.offset[0] == 4 * 8 && c.offset[1] == (6 + 4) * 8 && c.length[0] == 16,
          "send block 2: columns 4..5 of both local rows");
    geometry_recv_box(&g, 1, &box);  /* element (r, c) to row c, column 2 + r */
    c = runs_of(&box);
    CHECK(c.n == 4 && c.offset[0] == 2 * 8 && c.offset[1] == (6 + 2) * 8 && c.offset[2] == 3 * 8 &&
              c.offset[3] == (6 + 3) * 8,
          "receive slot 1: the block transposed into columns 2..3");
    CHECK(geometry_buffer_bytes(&g, 3) == 2 * 6 * 8, "the local rows: 2 x 6 doubles");
}

/* The data check's gap test on a layout's receive buffer, without MPI. */
static void test_gap_check(void)
{
    struct experiment e = static_experiment(LAYOUT_tiled, 2, 0, 3, 0, 4 * 4);  /* 2 blocks of 2 ints, stride 3 */
    struct layout_state s;
    memset(&s, 0, sizeof(s));
    geometry_make(&e, 2, &s.g);
    s.recv_bytes = geometry_buffer_bytes(&s.g, 2);
    s.recv = malloc(s.recv_bytes);
    int senders[2] = {1, MPI_PROC_NULL};
    struct run_context ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.e = &e;
    ctx.nrecv = 2;
    ctx.slot_senders = senders;
    ctx.layout = &s;
    memset(s.recv, 0xA5, s.recv_bytes);
    memset(s.recv, 1, 8);        /* slot 0's first unit */
    memset(s.recv + 12, 1, 8);   /* and its second */
    CHECK(layout_gap_written(&ctx, 0xA5) == -1, "only the received elements written: no gap finding");
    memset(s.recv, 1, 8);
    s.recv[9] = 7;               /* the gap after the first unit */
    CHECK(layout_gap_written(&ctx, 0xA5) == 9, "a byte in a gap is found at its offset");
    memset(s.recv, 0xA5, s.recv_bytes);
    s.recv[24] = 7;              /* slot 1 is from MPI_PROC_NULL: must stay untouched */
    CHECK(layout_gap_written(&ctx, 0xA5) == 24, "a slot without a sender must stay untouched");
    free(s.recv);
}

/* the other columns at the end, left empty */
#define HEADER "id,op,topology,ndim,nfin,datatype,msize,nrep,layout,type_constructor,packing,unit,unit2,stride,stride2,halo_n,matrix_n,constructor,radius,order,reorder,work_us,seed\n"

static const struct input_limits limits = {.nprocs = 4, .max_memory = 1 << 30, .max_degree = 1 << 20};

static int fails_with(const char *text, const char *message)
{
    struct input in;
    char error[512] = "";
    int failed = input_parse("in.csv", text, strlen(text), &limits, &in, error, sizeof(error)) != 0;
    if (failed && strcmp(error, message) != 0)
        printf("#   got: %s\n", error);
    if (!failed)
        input_free(&in);
    return failed && strcmp(error, message) == 0;
}

/* Int displacements that cannot hold a block's place, refused before
 * anything runs (a kernel that ran them would allocate gigabytes): with
 * the memory limit raised so far, nothing else stops them. */
static void test_displacement_input(void)
{
    const struct input_limits roomy = {.nprocs = 4, .max_memory = 1e11, .max_degree = 1 << 20};
    struct {
        const char *row, *message, *what;
    } cases[] = {
        {"1,alltoallw,full,,,byte,800000000,3,,,,,,,,,,,,,,,\n",
         "in.csv:2: column msize: 800000000 bytes per neighbor put the last of 4 blocks 2400000000 bytes into the "
         "buffer, more than op alltoallw's int displacements hold (2147483647)",
         "MPI_Alltoallw's byte displacements: block 3 of 4 past 2^31"},
        {"1,alltoallw,full,,,int,400000000,3,tiled,,,2,,6,,,,,,,,,\n",
         "in.csv:2: column msize: 400000000 bytes per neighbor put the last of 4 blocks 3600000000 bytes into the "
         "buffer, more than op alltoallw's int displacements hold (2147483647)",
         "a layout's extent counts: tiled of extent 3 x msize"},
        {"1,allgatherv,full,,,byte,1000000000,3,,,,,,,,,,,,,,,\n",
         "in.csv:2: column msize: 1000000000 bytes per neighbor put the last of 4 blocks 3000000000 elements into "
         "the buffer, more than op allgatherv's int displacements hold (2147483647)",
         "the v variants' displacements in elements"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char text[512], error[512] = "";
        snprintf(text, sizeof(text), HEADER "%s", cases[i].row);
        struct input in;
        int failed = input_parse("in.csv", text, strlen(text), &roomy, &in, error, sizeof(error)) != 0;
        if (!failed)
            input_free(&in);
        else if (strcmp(error, cases[i].message) != 0)
            printf("#   got: %s\n", error);
        CHECK(failed && strcmp(error, cases[i].message) == 0, "%s", cases[i].what);
    }
    const char *fits = HEADER "1,neighbor_alltoallw,cart,1,,byte,1000000000,3,,,,,,,,,,,,,,,\n";
    struct input in;
    char error[512] = "";
    int status = input_parse("in.csv", fits, strlen(fits), &roomy, &in, error, sizeof(error));
    CHECK(status == 0, "neighbor_alltoallw takes MPI_Aint byte displacements: no limit but memory (%s)", error);
    if (status == 0)
        input_free(&in);
}

static void test_layout_input(void)
{
    struct input in;
    char error[512] = "";
    const char *text = HEADER "1,neighbor_alltoall,cart,2,,int,240,3,tiled,,,3,,5,,,,,,,,,\n"
                              "2,neighbor_alltoallw,cart,3,,double,,3,halo,vector,manual_tiled,,,,,8,,,,,,,\n"
                              "3,alltoall,full,,,double,,3,transpose,,,,,,,,8,,,,,,\n"
                              "4,neighbor_alltoall,cart,2,,int,64,3,,,,,,,,,,,,,,,\n";
    int status = input_parse("in.csv", text, strlen(text), &limits, &in, error, sizeof(error));
    CHECK(status == 0 && in.count == 4, "layouts parse (%s)", error);
    if (status == 0) {
        const struct experiment *e = in.experiments;
        CHECK(e[0].layout.constructor == TYPE_CONSTRUCTOR_contiguous_resized && e[0].layout.packing == PACKING_datatype,
              "tiled: the normal constructor and the library's packing by default");
        CHECK(e[1].msize == 64 * 8 && e[1].layout.packing == PACKING_manual_tiled, "halo: msize is a face's bytes");
        CHECK(e[2].msize == 2 * 2 * 8 && e[2].layout.constructor == TYPE_CONSTRUCTOR_hvector,
              "transpose: msize is a (n/p)^2 block; hvector by default");
        CHECK(layout_is_plain(&e[3].layout), "no layout: contiguous, basic, datatype");
        input_free(&in);
    }
    CHECK(fails_with(HEADER "1,neighbor_alltoall,cart,2,,int,240,3,tiled,,,3,,3,,,,,,,,,\n",
                     "in.csv:2: column stride: 3 is not larger than unit 3 (layout tiled needs B > A)"),
          "a stride not larger than its unit");
    CHECK(fails_with(HEADER "1,neighbor_alltoall,cart,2,,int,100,3,tiled,,,3,,5,,,,,,,,,\n",
                     "in.csv:2: column msize: 100 is not a multiple of the block's bytes (layout tiled: 3 elements "
                     "of 4 bytes, 12 bytes)"),
          "msize not a multiple of the block's bytes");
    CHECK(fails_with(HEADER "1,neighbor_alltoall,cart,2,,int,240,3,block,vector,,3,,4,5,,,,,,,,\n",
                     "in.csv:2: column type_constructor: vector cannot describe layout block (it takes: "
                     "indexed_block indexed hindexed struct contiguous)"),
          "a constructor the layout does not allow");
    CHECK(fails_with(HEADER "1,neighbor_alltoallw,full,,,int,,3,halo,,,,,,,4,,,,,,,\n",
                     "in.csv:2: column layout: halo needs topology cart for op neighbor_alltoallw, not full"),
          "halo on a non-Cartesian topology");
    CHECK(fails_with(HEADER "1,neighbor_alltoall,cart,2,,int,,3,halo,,,,,,,4,,,,,,,\n",
                     "in.csv:2: column layout: halo does not apply to op neighbor_alltoall (it needs one of: "
                     "neighbor_alltoallw ineighbor_alltoallw neighbor_alltoallw_init p2p_alltoall)"),
          "halo on an op without per-neighbor types");
    CHECK(fails_with(HEADER "1,create,cart,2,,,,3,,,mpi_pack,,,,,,,,,,,,\n",
                     "in.csv:2: column packing: 'mpi_pack' given, but packing does not apply to op create (leave it "
                     "empty)"),
          "packing on an op that moves no data");
    CHECK(fails_with(HEADER "1,node_aware_alltoallv,cart,2,,int,8,3,,,mpi_pack,,,,,,,,,,,,\n",
                     "in.csv:2: column packing: op node_aware_alltoallv takes only layout contiguous, "
                     "type_constructor basic and packing datatype (it forwards its blocks as bytes); leave them "
                     "empty"),
          "the node-aware exchange forwards bytes: no layout, description or packing");
    CHECK(fails_with(HEADER "1,alltoall,full,,,double,,3,transpose,,,,,,,,6,,,,,,\n",
                     "in.csv:2: column matrix_n: 6 is not a multiple of the 4 processes (each has n/p rows)"),
          "a matrix the processes cannot share by rows");
    CHECK(fails_with(HEADER "1,neighbor_alltoall,cart,2,,int,240,3,tiled,,manual_tiled,3,,5,,,,,,,,,\n",
                     "in.csv:2: column packing: manual_tiled does not apply to layout tiled (it takes: datatype "
                     "mpi_pack manual)"),
          "cache-blocked packing only for halo and transpose");
    CHECK(fails_with(HEADER "1,neighbor_alltoall,cart,2,,int,240,3,tiled,,,,,5,,,,,,,,,\n",
                     "in.csv:2: column unit: empty, but required for layout tiled"), "a missing unit");
    CHECK(fails_with(HEADER "1,neighbor_alltoall,cart,2,,int,240,3,tiled,,,3,,5,7,,,,,,,,\n",
                     "in.csv:2: column stride2: '7' given, but stride2 does not apply to layout tiled (leave it "
                     "empty)"),
          "a geometry parameter the layout does not take");
    CHECK(fails_with(HEADER "1,neighbor_alltoallw,cart,2,,int,64,3,halo,,,,,,,4,,,,,,,\n",
                     "in.csv:2: column msize: '64' given, but msize does not apply to layout halo (it gives the bytes "
                     "per neighbor itself) (leave it empty)"),
          "msize with a layout that derives it");
    CHECK(fails_with(HEADER "1,neighbor_alltoall,cart,2,,int,180,3,tiled_hetero,,,3,,4,,,,,,,,,\n",
                     "in.csv:2: column datatype: layout tiled_hetero mixes char, int, double and short: datatype "
                     "must be byte, not int"),
          "tiled_hetero's own types");
    CHECK(fails_with(HEADER "1,neighbor_alltoall,cart,2,,int,240,3,tiles,,,3,,5,,,,,,,,,\n",
                     "in.csv:2: column layout: unknown layout 'tiles' (did you mean tiled? all 8: nbhbench list layout)"),
          "an unknown layout");
    CHECK(fails_with(HEADER "1,neighbor_alltoallw,cart,2,,double,,3,halo,,manual_tiled,,,,,8,,,,,,,\n",
                     "in.csv:2: column packing: manual_tiled on a 2-D halo is manual's copy (no face has two levels "
                     "of single elements to tile; 3-D: the faces across the fastest dimension): use manual"),
          "manual_tiled on a 2-D halo: the twin of manual");
    test_displacement_input();
}

void test_layouts(void)
{
    test_table2();
    test_static_blocks();
    test_halo();
    test_transpose();
    test_gap_check();
    test_layout_input();
}
