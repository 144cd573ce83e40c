/* An unknown name in the kernel's input is refused with the closest known
 * one, in one short line (gen/closest_name.py says the same: test_gen_rules.py). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "catalog.h"
#include "closest_name.h"
#include "input.h"
#include "tap.h"

#define HEADER "id,op,topology,constructor,ndim,nfin,radius,order,reorder,datatype,msize,nrep,work_us,seed\n"
#define SHORT_LINE 160

static const struct input_limits limits = {.nprocs = 4, .max_memory = 1 << 30, .max_degree = 1 << 20};

/* Whether the input fails with exactly the message `format` makes, in at
 * most SHORT_LINE characters. */
static int refused_with(const char *text, const char *format, ...)
{
    struct input in;
    char error[1024] = "", message[1024];
    va_list ap;
    va_start(ap, format);
    vsnprintf(message, sizeof(message), format, ap);
    va_end(ap);
    int failed = input_parse("in.csv", text, strlen(text), &limits, &in, error, sizeof(error)) != 0;
    if (!failed || strcmp(error, message) != 0)
        printf("#   got: %s\n", error);
    return failed && strcmp(error, message) == 0 && strlen(error) <= SHORT_LINE;
}

void test_closest_name(void)
{
    CHECK(closest_name_distance("neighbor_altoall", "neighbor_alltoall") == 1 &&
              closest_name_distance("kitten", "sitting") == 3 && closest_name_distance("", "abc") == 3 &&
              closest_name_distance("rand", "RAND") == 0 && closest_name_distance("lsit", "list") == 1 &&
              closest_name_distance("dmeo", "demo") == 1 && closest_name_distance("ab", "ba") == 1 &&
              closest_name_distance("ca", "abc") == 3,
          "edit distance: inserts, deletes, replacements and swaps of neighbours; case ignored");
    CHECK(closest_name_close("neighbor_altoall", 5) && !closest_name_close("neighbor_altoall", 6) &&
              !closest_name_close("ab", 1),
          "close enough to suggest: at most a third of the word's letters");

    CHECK(refused_with(HEADER "1,neighbor_altoall,cart,,2,0,,,0,,64,3,,1\n",
                       "in.csv:2: column op: unknown operation 'neighbor_altoall' (did you mean neighbor_alltoall? "
                       "all %d: nbhbench list op)", N_OPERATIONS),
          "a misspelt op: the closest one, and where the rest are listed");
    CHECK(refused_with(HEADER "1,ineighbour_allgatherv,cart,,2,0,,,0,,64,3,,1\n",
                       "in.csv:2: column op: unknown operation 'ineighbour_allgatherv' (did you mean "
                       "ineighbor_allgatherv? all %d: nbhbench list op)", N_OPERATIONS),
          "a British spelling");
    CHECK(refused_with(HEADER "1,frobnicate,cart,,2,0,,,0,,64,3,,1\n",
                       "in.csv:2: column op: unknown operation 'frobnicate' (all %d: nbhbench list op)", N_OPERATIONS),
          "no op is close to a word that is none: no guess");
    CHECK(refused_with(HEADER "1,neighbor_alltoall,mooore,,2,0,1,,0,,64,3,,1\n",
                       "in.csv:2: column topology: unknown topology 'mooore' (did you mean moore? known: cart, moore, "
                       "vneum, full, graph)"),
          "a misspelt topology; the few topologies are named");
    CHECK(refused_with(HEADER "1,neighbor_alltoall,moore,dist_grap,2,0,1,,0,,64,3,,1\n",
                       "in.csv:2: column constructor: unknown constructor 'dist_grap' (did you mean dist_graph? "
                       "known: dist_graph_adjacent, dist_graph)"),
          "a misspelt constructor: among those of the topology");
    CHECK(refused_with(HEADER "1,neighbor_alltoall,moore,,2,0,1,rand,0,,64,3,,1\n",
                       "in.csv:2: column order: unknown order 'rand' (did you mean RAND? known: FMAJ, LMAJ, RAND)"),
          "an order in lower case: among those of the topology");
    CHECK(refused_with(HEADER "1,neighbor_alltoall,full,,,,,LINAER,0,,64,3,,1\n",
                       "in.csv:2: column order: unknown order 'LINAER' (did you mean LINEAR? known: LINEAR, RAND)"),
          "a misspelt order of Full");
    CHECK(refused_with(HEADER "1,neighbor_alltoall,cart,,2,0,,,0,doubel,64,3,,1\n",
                       "in.csv:2: column datatype: unknown datatype 'doubel' (did you mean double? known: byte, int, "
                       "double)"),
          "a misspelt datatype");
    CHECK(refused_with("id,op,topology,constructor,ndim,nfin,radius,order,reorder,datatype,msise,nrep,work_us,seed\n"
                       "1,neighbor_alltoall,cart,,2,0,,,0,,64,3,,1\n",
                       "in.csv:1: column msise: unknown column (did you mean msize? all %d: nbhbench list parameters)",
                       N_PARAMETERS),
          "a misspelt column");
}
