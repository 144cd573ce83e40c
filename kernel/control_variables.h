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

/* The CSV text (name,value) of every readable variable not bound to an
 * object, to free(); *count: how many. NULL if MPI_T is not started. */
char *control_variables_csv(int *count, size_t *size);

enum cvar_verdict { CVAR_IN_FORCE, CVAR_DIFFERS, CVAR_UNKNOWN, CVAR_UNREADABLE };

/* Looks up variable `name`: in_force gets its value; with `set` (may be
 * NULL) it is compared with that value as a user writes it (numbers,
 * booleans, enumeration choices by name or number). For an unknown name,
 * hint gets the most similar name the library has (or "") and *count how
 * many it has. */
int control_variable_check(const char *name, const char *set, char *in_force, size_t in_force_size,
                           char *hint, size_t hint_size, int *count);

#endif
