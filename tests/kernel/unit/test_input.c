/* Input parsing: defaults, layout freedom, and the exact form of errors
 * (the full bad-input corpus runs through the real kernel in pytest). */
#include <string.h>

#include "input.h"
#include "tap.h"

static const struct input_limits limits = {.nprocs = 4, .max_memory = 1 << 30, .max_degree = 1 << 20};

static int parse(const char *text, struct input *in, char *error)
{
    return input_parse("in.csv", text, strlen(text), &limits, in, error, 512);
}

#define HEADER "id,op,topology,constructor,ndim,nfin,radius,order,reorder,datatype,msize,nrep,work_us,seed\n"
#define HEADER_GRAPH "id,op,topology,constructor,ndim,nfin,radius,order,reorder,datatype,msize,nrep,work_us,seed,graph,weights\n"

static int fails_with(const char *text, const char *message)
{
    struct input in;
    char error[512] = "";
    int failed = parse(text, &in, error) != 0;
    if (failed && strcmp(error, message) != 0)
        printf("#   got: %s\n", error);
    return failed && strcmp(error, message) == 0;
}

#define HEADER_ARRIVAL "id,op,topology,constructor,ndim,nfin,radius,order,reorder,datatype,msize,nrep,work_us,seed,arrival,arrival_us,late_rank,sync\n"

/* The arrival pattern and the start (SPEC 8.2): arrival, arrival_us,
 * late_rank (default p/2, below p), sync; none of them for create. */
static void test_arrival_input(void)
{
    struct input in;
    char error[512] = "";
    int status = parse(HEADER_ARRIVAL "1,neighbor_alltoall,cart,,1,,,,,,8,5,,,one_late,50,,clock\n"
                                      "2,bcast,cart,,1,,,,,,8,5,,,uniform,2.5,,\n"
                                      "3,neighbor_alltoall,cart,,1,,,,,,8,5,,,,,,\n"
                                      "4,neighbor_alltoall,cart,,1,,,,,,8,5,,,one_late,50,3,\n",
                       &in, error);
    CHECK(status == 0 && in.count == 4, "arrival columns parse (%s)", error);
    if (status == 0) {
        const struct experiment *e = in.experiments;
        CHECK(e[0].arrival == ARRIVAL_one_late && e[0].arrival_us == 50 && e[0].late_rank == 2 &&
                  e[0].sync == SYNC_clock, "one_late: late_rank defaults to p/2 (4 processes: 2)");
        CHECK(e[1].arrival == ARRIVAL_uniform && e[1].arrival_us == 2.5 && e[1].sync == SYNC_barrier &&
                  e[1].late_rank == NBH_NOT_APPLICABLE, "uniform; sync defaults to barrier");
        CHECK(e[2].arrival == ARRIVAL_none && e[2].arrival_us == 0 && e[2].sync == SYNC_barrier,
              "arrival defaults to none");
        CHECK(e[3].late_rank == 3, "late_rank as given");
        input_free(&in);
    }
    status = parse(HEADER "1,neighbor_alltoall,cart,,1,,,,,,8,5,,\n", &in, error);
    CHECK(status == 0 && in.experiments[0].arrival == ARRIVAL_none && in.experiments[0].sync == SYNC_barrier,
          "a header without the arrival columns: no delays, barrier start");
    if (status == 0)
        input_free(&in);
    CHECK(fails_with(HEADER_ARRIVAL "1,neighbor_alltoall,cart,,1,,,,,,8,5,,,,50,,\n",
                     "in.csv:2: column arrival_us: '50' given, but arrival_us does not apply to arrival none "
                     "(leave it empty)"), "arrival_us without an arrival pattern");
    CHECK(fails_with(HEADER_ARRIVAL "1,neighbor_alltoall,cart,,1,,,,,,8,5,,,uniform,,,\n",
                     "in.csv:2: column arrival_us: empty, but required with an arrival pattern (the maximum "
                     "delay d in microseconds)"), "an arrival pattern without arrival_us");
    CHECK(fails_with(HEADER_ARRIVAL "1,neighbor_alltoall,cart,,1,,,,,,8,5,,,one_late,5,4,\n",
                     "in.csv:2: column late_rank: 4 is not a process: the run has 4 process(es) (ranks 0..3)"),
          "late_rank >= p");
    CHECK(fails_with(HEADER_ARRIVAL "1,neighbor_alltoall,cart,,1,,,,,,8,5,,,uniform,5,1,\n",
                     "in.csv:2: column late_rank: '1' given, but late_rank does not apply to arrival uniform "
                     "(leave it empty)"), "late_rank without one_late");
    CHECK(fails_with(HEADER_ARRIVAL "1,create,cart,,1,,,,,,,5,,,,,,clock\n",
                     "in.csv:2: column sync: 'clock' given, but op create cannot run in windows of a global clock "
                     "(each repetition builds and frees a communicator): sync applies to operations that move "
                     "data (leave it empty)"), "sync=clock with create");
    CHECK(fails_with(HEADER_ARRIVAL "1,neighbor_alltoall,cart,,1,,,,,,8,5,,,early,5,,\n",
                     "in.csv:2: column arrival: unknown arrival pattern 'early' (known: none, uniform, one_late, "
                     "ramp)"), "unknown arrival pattern");
    CHECK(fails_with(HEADER_ARRIVAL "1,neighbor_alltoall,cart,,1,,,,,,8,5,,,ramp,2000000,,\n",
                     "in.csv:2: column arrival_us: 2000000 is outside 0..1000000 (registry/parameters.csv)"),
          "arrival_us over its bound");
}

/* The graph topology's columns: graph (a path, resolved against the input
 * file's folder) and weights; both may be left out of the header. */
static void test_graph_input(void)
{
    struct input in;
    char error[512] = "";
    const char *text = HEADER_GRAPH "1,neighbor_alltoallv,graph,,,,,,,,8,5,,,g/a.csv,\n"
                       "2,create,graph,dist_graph,,,,HEAVY,1,,,5,,,/abs/b.csv,1\n";
    int status = input_parse("runs/r1/in.csv", text, strlen(text), &limits, &in, error, sizeof(error));
    CHECK(status == 0 && in.count == 2, "graph experiments parse (%s)", error);
    if (status == 0) {
        const struct experiment *e = in.experiments;
        CHECK(strcmp(e[0].graph, "runs/r1/g/a.csv") == 0 && e[0].weights == 0 && e[0].order == ORDER_GIVEN &&
                  e[0].constructor == CONSTRUCTOR_dist_graph_adjacent,
              "graph defaults: GIVEN, dist_graph_adjacent, weights 0; a relative path is the input's folder's");
        CHECK(strcmp(e[1].graph, "/abs/b.csv") == 0 && e[1].weights == 1 && e[1].order == ORDER_HEAVY,
              "an absolute graph path is kept; weights and order as given");
        input_free(&in);
    }
    CHECK(fails_with(HEADER_GRAPH "1,neighbor_alltoallv,full,,,,,,,,8,5,,,g.csv,\n",
                     "in.csv:2: column graph: 'g.csv' given, but graph does not apply to topology full (leave it empty)"),
          "graph on another topology");
    CHECK(fails_with(HEADER_GRAPH "1,neighbor_alltoallv,moore,,2,,,,,,8,5,,,,0\n",
                     "in.csv:2: column weights: '0' given, but weights does not apply to topology moore (leave it empty)"),
          "weights on another topology");
    CHECK(fails_with(HEADER_GRAPH "1,neighbor_alltoallv,graph,,,,,,,,8,5,,,,\n",
                     "in.csv:2: column graph: empty, but required for topology graph (the graph file)"), "no graph");
    CHECK(fails_with(HEADER_GRAPH "1,neighbor_alltoallv,graph,,,,,,,,8,5,,,g.csv,2\n",
                     "in.csv:2: column weights: 2 is outside 0..1"), "weights not 0/1");
    CHECK(fails_with(HEADER_GRAPH "1,neighbor_alltoallv,graph,,,,,FMAJ,,,8,5,,,g.csv,\n",
                     "in.csv:2: column order: FMAJ does not apply to topology graph (it takes: GIVEN RAND HEAVY)"),
          "order of another topology");
    CHECK(fails_with(HEADER_GRAPH "1,neighbor_alltoallv,graph,,2,,,,,,8,5,,,g.csv,\n",
                     "in.csv:2: column ndim: '2' given, but ndim does not apply to topology graph (leave it empty)"),
          "grid parameters on a graph");
}

void test_input(void)
{
    struct input in;
    char error[512] = "";
    int status = parse("# a comment\r\n\r\n" HEADER
                       "1,neighbor_alltoall,cart,,2,,,,,,1024,5,,\r\n"
                       "2,neighbor_alltoall,moore,,3,,,,1,,8,5,2.5,99\n"
                       "3,alltoall,full,dist_graph,,,,RAND,,double,16,1,,\n"
                       "4,create,vneum,,1,1,3,LMAJ,0,,,2,,\n",
                       &in, error);
    CHECK(status == 0 && in.count == 4, "a valid file with comments, blank lines and CRLF parses (%s)", error);
    if (status == 0) {
        const struct experiment *e = in.experiments;
        CHECK(e[0].constructor == CONSTRUCTOR_cart_create && e[0].order == NBH_NOT_APPLICABLE &&
                  e[0].nfin == 0 && e[0].datatype == DATATYPE_byte && e[0].work_us == 0,
              "cart defaults: cart_create, no order, nfin 0, byte, no work");
        CHECK(e[1].constructor == CONSTRUCTOR_dist_graph_adjacent && e[1].order == ORDER_FMAJ &&
                  e[1].radius == 1 && e[1].reorder == 1 && e[1].work_us == 2.5 && e[1].seed == 99,
              "moore defaults: dist_graph_adjacent, FMAJ, radius 1; given values kept");
        CHECK(e[2].constructor == CONSTRUCTOR_dist_graph && e[2].order == ORDER_RAND &&
                  e[2].ndim == NBH_NOT_APPLICABLE && e[2].datatype == DATATYPE_double,
              "full: no grid, order and datatype as given");
        CHECK(e[3].op == OP_create && e[3].msize == 0 && e[3].radius == 3 && e[3].order == ORDER_LMAJ,
              "create: no msize; radius and order as given");
        CHECK(e[1].line == 5, "every experiment knows its line (for messages)");
        input_free(&in);
    }
    status = parse("seed,nrep,msize,work_us,datatype,reorder,order,radius,nfin,ndim,constructor,topology,op,id\n"
                   ",3,64,,,,,,,,,full,allgather,7\n", &in, error);
    CHECK(status == 0 && in.count == 1 && in.experiments[0].id == 7 && in.experiments[0].msize == 64,
          "columns may come in any order");
    if (status == 0)
        input_free(&in);

    CHECK(fails_with("", "in.csv:1: empty file; expected a header line naming the parameters"), "empty file");
    CHECK(fails_with(HEADER "1,neighbor_alltoall,cart,,2,,,,,,big,5,,\n",
                     "in.csv:2: column msize: 'big' is not an integer"), "non-numeric msize");
    CHECK(fails_with(HEADER "1,neighbor_alltoall,cart,,2,,,RAND,,,8,5,,\n",
                     "in.csv:2: column order: 'RAND' given, but order does not apply to topology cart (leave it empty)"),
          "order on a Cartesian topology");
    CHECK(fails_with("id,op,topology\n1,create,cart\n", "in.csv:1: column constructor: missing from the header"),
          "missing column");
    CHECK(fails_with(HEADER "1,neighbor_alltoall,cart,,2,,,,,,8,5,,\n1,allgather,full,,,,,,,,8,5,,\n",
                     "in.csv:3: column id: 1 already used on line 2"), "duplicate id");
    test_graph_input();
    test_arrival_input();
}
