/* Grid extents for p processes in ndim dimensions (our own MPI_Dims_create). */
#ifndef NBH_DIMS_H
#define NBH_DIMS_H

/* Among all ways to write p as a product of ndim factors, the one whose
 * largest minus smallest factor is smallest, in non-increasing order; ties go
 * to the lexicographically smallest vector. Returns 0, or -1 if p < 1 or
 * ndim is outside 1..NBH_MAX_NDIM. */
int tuw_dims_create(int p, int ndim, int *dims);

#endif
