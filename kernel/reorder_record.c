#include "reorder_record.h"

void reorder_record(MPI_Comm base, int topology_rank, const struct experiment *e, struct output *out)
{
    int base_rank, changed, total = 0;
    MPI_Comm_rank(base, &base_rank);
    changed = base_rank != topology_rank;
    MPI_Reduce(&changed, &total, 1, MPI_INT, MPI_SUM, 0, base);
    if (base_rank == 0)
        output_reorder(out, e, total);
}
