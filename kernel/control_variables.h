/* The library's control variables in force (Open MPI MCA parameters, MPICH
 * CVARs), read back through the MPI tool information interface (MPI_T):
 * what was really set, not what the job script meant to set. */
#ifndef NBH_CONTROL_VARIABLES_H
#define NBH_CONTROL_VARIABLES_H

/* Writes name,value for every readable variable not bound to an object.
 * Returns how many were written, or -1 if MPI_T or the file failed. */
int control_variables_write(const char *path);

#endif
