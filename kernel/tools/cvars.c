/* nbh-cvars: the library's control variables as MPI_T shows them, for
 * `nbhbench tune` (tune/space.py): one CSV row per variable bound to no
 * object, with its value in force, the choices of an enumeration
 * ("1:linear;2:pairwise", Open MPI's MCA enumerators) and its description
 * (where MPICH lists the choices of its algorithm CVARs). Run as one
 * process under the environment's launcher. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "../control_variables.h"

static void csv_quoted(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"')
            putchar('"');
        putchar(*s == '\n' || *s == '\r' ? ' ' : *s);
    }
    putchar('"');
}

/* "value:name;value:name" of an enumeration, into out. */
static void enum_choices(MPI_T_enum enumtype, char *out, size_t size)
{
    int n, len;
    char name[256];
    size_t used = 0;
    out[0] = '\0';
    len = sizeof(name);
    if (enumtype == MPI_T_ENUM_NULL || MPI_T_enum_get_info(enumtype, &n, name, &len) != MPI_SUCCESS)
        return;
    for (int i = 0; i < n && used + 1 < size; i++) {
        int value;
        len = sizeof(name);
        if (MPI_T_enum_get_item(enumtype, i, &value, name, &len) != MPI_SUCCESS)
            continue;
        int wrote = snprintf(out + used, size - used, "%s%d:%s", used ? ";" : "", value, name);
        if (wrote < 0 || (size_t)wrote >= size - used)
            break;
        used += (size_t)wrote;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int status = 1;
    if (control_variables_start() == 0) {
        int n;
        static char name[512], description[8192], choices[8192], in_force[4096], hint[512];
        status = 0;
        printf("name,value,choices,description\n");
        if (MPI_T_cvar_get_num(&n) != MPI_SUCCESS)
            n = 0;
        for (int i = 0; i < n; i++) {
            int name_len = sizeof(name), desc_len = sizeof(description), verbosity, bind, scope, count;
            MPI_Datatype type;
            MPI_T_enum enumtype;
            if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, description, &desc_len,
                                    &bind, &scope) != MPI_SUCCESS || bind != MPI_T_BIND_NO_OBJECT)
                continue;
            if (control_variable_check(name, NULL, in_force, sizeof(in_force), hint, sizeof(hint), &count) ==
                CVAR_UNKNOWN)
                continue;
            enum_choices(enumtype, choices, sizeof(choices));
            csv_quoted(name);
            putchar(',');
            csv_quoted(in_force);
            putchar(',');
            csv_quoted(choices);
            putchar(',');
            csv_quoted(description);
            putchar('\n');
        }
        control_variables_stop();
    } else {
        fprintf(stderr, "nbh-cvars: the MPI tool interface (MPI_T) did not start\n");
    }
    MPI_Finalize();
    return status;
}
