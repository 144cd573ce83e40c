/* The library's control variables in force (Open MPI MCA parameters, MPICH
 * CVARs), read back through the MPI tool information interface (MPI_T):
 * what was really set, not what the job script meant to set. */
#ifndef NBH_CONTROL_VARIABLES_H
#define NBH_CONTROL_VARIABLES_H

#include <stddef.h>

/* Starts and stops the MPI tool interface for the functions below (once per
 * process, after MPI_Init and before MPI_Finalize). */
int control_variables_start(void);
void control_variables_stop(void);

/* Writes name,value for every readable variable not bound to an object.
 * Returns how many were written, or -1 if MPI_T or the file failed. */
int control_variables_write(const char *path);

/* Whether the library has a control variable of this name. If not, `hint`
 * gets the most similar name it does have (or ""), and *count how many it
 * has. Returns 1, 0, or -1 if MPI_T failed. */
int control_variable_known(const char *name, char *hint, size_t size, int *count);

#endif
