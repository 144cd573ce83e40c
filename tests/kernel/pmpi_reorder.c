/* libnbh-reorder.so: a PMPI tool that does what MPI allows a library to do
 * with reorder = 1 and what neither Open MPI 4.1 nor MPICH 4.0 does here:
 * MPI_Cart_create(..., reorder = 1, ...) numbers the processes of the new
 * communicator backwards. The kernel's reorder record (PREFIX.reorder.csv)
 * must then count every process whose rank moved. Loaded with LD_PRELOAD. */
#include <mpi.h>

int MPI_Cart_create(MPI_Comm old, int ndims, const int dims[], const int periods[], int reorder,
                    MPI_Comm *cart)
{
    if (!reorder)
        return PMPI_Cart_create(old, ndims, dims, periods, reorder, cart);
    int rank, size;
    MPI_Comm reversed;
    PMPI_Comm_rank(old, &rank);
    PMPI_Comm_size(old, &size);
    PMPI_Comm_split(old, 0, size - 1 - rank, &reversed);
    int status = PMPI_Cart_create(reversed, ndims, dims, periods, 0, cart);
    PMPI_Comm_free(&reversed);
    return status;
}
