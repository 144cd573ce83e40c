/* nbh-mpi-dims P NDIM: prints what this MPI library's MPI_Dims_create
 * returns, for `nbhbench dims --compare`. Runs as a singleton. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    if (argc != 3) {
        fprintf(stderr, "usage: nbh-mpi-dims P NDIM\n");
        MPI_Finalize();
        return 2;
    }
    int p = atoi(argv[1]), ndim = atoi(argv[2]);
    int dims[8] = {0};
    if (p < 1 || ndim < 1 || ndim > 8 || MPI_Dims_create(p, ndim, dims) != MPI_SUCCESS) {
        fprintf(stderr, "nbh-mpi-dims: cannot ask MPI_Dims_create for %s %s\n", argv[1], argv[2]);
        MPI_Finalize();
        return 2;
    }
    for (int d = 0; d < ndim; d++)
        printf(d ? " %d" : "%d", dims[d]);
    printf("\n");
    MPI_Finalize();
    return 0;
}
