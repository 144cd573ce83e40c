/* The kernel's unit tests: pure functions, no MPI runtime needed. */
#include "tap.h"

int tap_count;
int tap_failed;

int main(void)
{
    test_dims();
    test_offsets();
    test_orders();
    test_full();
    test_graph_file();
    test_pairing();
    test_input();
    test_whole_output();
    test_layouts();
    test_arrival();
    test_closest_name();
    test_packing();
    printf("1..%d\n", tap_count);
    return tap_failed != 0;
}
