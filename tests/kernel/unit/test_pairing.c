/* The pairing names of edges (MPI-4.1 section 8.6). */
#include <string.h>

#include "pairing.h"
#include "tap.h"

void test_pairing(void)
{
    int sources[] = {1, 1, 2, 2}, destinations[] = {1, 1, 2, 2};
    struct neighbor_lists cart = {4, 4, sources, destinations};
    int send[4], recv[4];
    pairing_tags(1, &cart, send, recv);
    CHECK(memcmp(send, (int[]){0, 1, 2, 3}, sizeof(send)) == 0, "Cartesian: block s is named s");
    CHECK(memcmp(recv, (int[]){1, 0, 3, 2}, sizeof(recv)) == 0, "Cartesian: slot s receives block s^1");

    int gs[] = {5, 3, 5, 5, 3}, gd[] = {3, 3, 7, 3, 5};
    struct neighbor_lists graph = {5, 5, gs, gd};
    int gsend[5], grecv[5];
    pairing_tags(0, &graph, gsend, grecv);
    CHECK(memcmp(grecv, (int[]){0, 0, 1, 2, 1}, sizeof(grecv)) == 0,
          "graph: the k-th edge from a process is named k (sources)");
    CHECK(memcmp(gsend, (int[]){0, 1, 0, 2, 0}, sizeof(gsend)) == 0,
          "graph: the k-th edge to a process is named k (destinations)");
}
