#include "control_variables.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_VALUES = 64 };

static void csv_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s == '\n' ? ' ' : *s, f);
    }
    fputc('"', f);
}

/* The name of an enumeration value, or its number. */
static void enum_name(MPI_T_enum enumtype, int value, char *out, size_t size)
{
    int n, len = 0;
    char name[256];
    snprintf(out, size, "%d", value);
    len = sizeof(name);
    if (MPI_T_enum_get_info(enumtype, &n, name, &len) != MPI_SUCCESS)
        return;
    for (int i = 0; i < n; i++) {
        int v;
        len = sizeof(name);
        if (MPI_T_enum_get_item(enumtype, i, &v, name, &len) == MPI_SUCCESS && v == value) {
            snprintf(out, size, "%s", name);
            return;
        }
    }
}

/* One value of a variable as text; 0, or -1 for a type we do not read. */
static int format_value(MPI_Datatype type, MPI_T_enum enumtype, const void *data, int i, char *out,
                        size_t size)
{
    if (type == MPI_INT) {
        int v = ((const int *)data)[i];
        if (enumtype != MPI_T_ENUM_NULL)
            enum_name(enumtype, v, out, size);
        else
            snprintf(out, size, "%d", v);
    } else if (type == MPI_UNSIGNED) {
        snprintf(out, size, "%u", ((const unsigned *)data)[i]);
    } else if (type == MPI_UNSIGNED_LONG) {
        snprintf(out, size, "%lu", ((const unsigned long *)data)[i]);
    } else if (type == MPI_UNSIGNED_LONG_LONG) {
        snprintf(out, size, "%llu", ((const unsigned long long *)data)[i]);
    } else if (type == MPI_COUNT) {
        snprintf(out, size, "%lld", (long long)((const MPI_Count *)data)[i]);
    } else if (type == MPI_DOUBLE) {
        snprintf(out, size, "%g", ((const double *)data)[i]);
    } else {
        return -1;
    }
    return 0;
}

static int write_variable(FILE *f, int index)
{
    char name[512], text[4096];
    int name_len = sizeof(name), desc_len = 0, verbosity, bind, scope;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    if (MPI_T_cvar_get_info(index, name, &name_len, &verbosity, &type, &enumtype, NULL, &desc_len,
                            &bind, &scope) != MPI_SUCCESS || bind != MPI_T_BIND_NO_OBJECT)
        return 0;
    MPI_T_cvar_handle handle;
    int count;
    if (MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS)
        return 0;
    int written = 0;
    if (type == MPI_CHAR) {
        char value[4096] = {0};
        if (count < (int)sizeof(value) && MPI_T_cvar_read(handle, value) == MPI_SUCCESS) {
            csv_quoted(f, name);
            fputc(',', f);
            csv_quoted(f, value);
            fputc('\n', f);
            written = 1;
        }
    } else if (count >= 1 && count <= MAX_VALUES) {
        long double storage[MAX_VALUES];  /* room for any of the numeric types */
        if (MPI_T_cvar_read(handle, storage) == MPI_SUCCESS) {
            size_t used = 0;
            int ok = 1;
            for (int i = 0; i < count && ok; i++) {
                if (i)
                    text[used++] = ';';
                ok = format_value(type, enumtype, storage, i, text + used, sizeof(text) - used) == 0;
                used += strlen(text + used);
            }
            if (ok) {
                csv_quoted(f, name);
                fputc(',', f);
                csv_quoted(f, text);
                fputc('\n', f);
                written = 1;
            }
        }
    }
    MPI_T_cvar_handle_free(&handle);
    return written;
}

/* MPI_T is started once per process: MPICH 4.0 crashes in a second
 * MPI_T_init_thread after an MPI_T_finalize. */
static int started;

int control_variables_start(void)
{
    int provided;
    started = MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS;
    return started ? 0 : -1;
}

void control_variables_stop(void)
{
    if (started)
        MPI_T_finalize();
    started = 0;
}

int control_variables_write(const char *path)
{
    int n;
    if (!started)
        return -1;
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "name,value\n");
    int written = 0;
    if (MPI_T_cvar_get_num(&n) == MPI_SUCCESS)
        for (int i = 0; i < n; i++)
            written += write_variable(f, i);
    fclose(f);
    return written;
}

/* Edit distance, for suggesting the name a typo was meant to be. */
static size_t edit_distance(const char *a, const char *b)
{
    size_t n = strlen(b), *row = malloc(sizeof(size_t) * (n + 1));
    for (size_t j = 0; j <= n; j++)
        row[j] = j;
    for (size_t i = 1; *a; a++, i++) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= n; j++) {
            size_t above = row[j];
            size_t best = diagonal + (*a != b[j - 1]);
            best = above + 1 < best ? above + 1 : best;
            best = row[j - 1] + 1 < best ? row[j - 1] + 1 : best;
            row[j] = best;
            diagonal = above;
        }
    }
    size_t d = row[n];
    free(row);
    return d;
}

int control_variable_known(const char *name, char *hint, size_t size, int *count)
{
    int n, known = 0;
    size_t closest = (size_t)-1;
    hint[0] = '\0';
    *count = 0;
    if (!started)
        return -1;
    if (MPI_T_cvar_get_num(&n) == MPI_SUCCESS) {
        *count = n;
        for (int i = 0; i < n && !known; i++) {
            char candidate[512];
            int len = sizeof(candidate), verbosity, bind, scope, desc_len = 0;
            MPI_Datatype type;
            MPI_T_enum enumtype;
            if (MPI_T_cvar_get_info(i, candidate, &len, &verbosity, &type, &enumtype, NULL, &desc_len,
                                    &bind, &scope) != MPI_SUCCESS)
                continue;
            if (strcmp(candidate, name) == 0) {
                known = 1;
                break;
            }
            size_t d = edit_distance(name, candidate);
            if (d < closest) {
                closest = d;
                snprintf(hint, size, "%s", candidate);
            }
        }
    }
    if (!known && closest > strlen(name) / 3)
        hint[0] = '\0';  /* nothing close enough to be a typo */
    return known;
}
