#include "control_variables.h"

#include <ctype.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "closest_name.h"

enum { MAX_VALUES = 64 };

/* One control variable, read: its name, its value in force as text (arrays
 * ';'-separated, enumerations by name), and its description. */
struct variable {
    char name[512];
    char text[4096];
    char description[4096];
    MPI_T_enum enumtype;
};

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

/* The name of an enumeration value, or its number. */
static void enum_name(MPI_T_enum enumtype, int value, char *out, size_t size)
{
    int n, len;
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
    if (type == MPI_INT || type == MPI_C_BOOL) {
        int v = type == MPI_INT ? ((const int *)data)[i] : ((const _Bool *)data)[i];
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

/* Reads variable `index`, if it is bound to no object and of a type we
 * read. Returns 0, or -1. */
static int read_variable(int index, struct variable *v)
{
    int name_len = sizeof(v->name), desc_len = sizeof(v->description), verbosity, bind, scope, count;
    MPI_Datatype type;
    v->description[0] = v->text[0] = '\0';
    if (MPI_T_cvar_get_info(index, v->name, &name_len, &verbosity, &type, &v->enumtype, v->description,
                            &desc_len, &bind, &scope) != MPI_SUCCESS || bind != MPI_T_BIND_NO_OBJECT)
        return -1;
    MPI_T_cvar_handle handle;
    if (MPI_T_cvar_handle_alloc(index, NULL, &handle, &count) != MPI_SUCCESS)
        return -1;
    int status = -1;
    if (type == MPI_CHAR) {
        if (count < (int)sizeof(v->text) && MPI_T_cvar_read(handle, v->text) == MPI_SUCCESS)
            status = 0;
    } else if (count >= 1 && count <= MAX_VALUES) {
        long double storage[MAX_VALUES];  /* room for any of the numeric types */
        if (MPI_T_cvar_read(handle, storage) == MPI_SUCCESS) {
            size_t used = 0;
            status = 0;
            for (int i = 0; i < count && status == 0 && used + 2 < sizeof(v->text); i++) {
                if (i)
                    v->text[used++] = ';';
                status = format_value(type, v->enumtype, storage, i, v->text + used, sizeof(v->text) - used);
                used += strlen(v->text + used);
            }
        }
    }
    MPI_T_cvar_handle_free(&handle);
    return status;
}

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

char *control_variables_csv(int *count, size_t *size)
{
    int n, written = 0;
    *count = 0;
    if (!started)
        return NULL;
    char *text = NULL;
    FILE *f = open_memstream(&text, size);
    fprintf(f, "name,value\n");
    if (MPI_T_cvar_get_num(&n) == MPI_SUCCESS) {
        for (int i = 0; i < n; i++) {
            struct variable v;
            if (read_variable(i, &v) != 0)
                continue;
            csv_quoted(f, v.name);
            fputc(',', f);
            csv_quoted(f, v.text);
            fputc('\n', f);
            written++;
        }
    }
    fclose(f);
    *count = written;
    return text;
}

static int as_number(const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    return *s && !*end;
}

/* 1 or 0 for the usual spellings of a boolean, else -1. */
static int as_boolean(const char *s)
{
    const char *yes[] = {"true", "yes", "on", "1"}, *no[] = {"false", "no", "off", "0"};
    for (int i = 0; i < 4; i++) {
        if (strcasecmp(s, yes[i]) == 0)
            return 1;
        if (strcasecmp(s, no[i]) == 0)
            return 0;
    }
    return -1;
}

/* MPICH reports its algorithm selections as plain integers and lists the
 * choices in the description, in order: "... auto - Internal selection ...
 * brucks   - Force brucks ...". The index of choice `name`, or -1. */
static int choice_index(const char *description, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = strstr(description, name); p; p = strstr(p + 1, name)) {
        const char *q = p + len;
        if ((p > description && p[-1] == '_') || *q != ' ')
            continue;
        while (*q == ' ')
            q++;
        if (q[0] != '-' || q[1] != ' ')
            continue;
        int index = 0;  /* the choices before this one, each "name<spaces>- " */
        for (const char *s = description; s < p; s++)
            if (s[0] == ' ' && s[1] == '-' && s[2] == ' ')
                index++;
        return index;
    }
    return -1;
}

/* Whether the value set (as a user writes it) is the value in force (as
 * MPI_T reports it): the same text or number, the same boolean, or the
 * same enumeration choice by name or by number. */
static int same_value(const struct variable *v, const char *set)
{
    double a, b;
    if (strcmp(v->text, set) == 0 || (as_number(v->text, &a) && as_number(set, &b) && a == b))
        return 1;
    if (as_boolean(set) >= 0 && as_boolean(set) == as_boolean(v->text))
        return 1;
    if (v->enumtype != MPI_T_ENUM_NULL && as_number(set, &b)) {
        char name[256];
        enum_name(v->enumtype, (int)b, name, sizeof(name));
        return strcmp(name, v->text) == 0;
    }
    if (as_number(v->text, &a) && !as_number(set, &b))
        return choice_index(v->description, set) == (int)a;
    return 0;
}

int control_variable_check(const char *name, const char *set, char *in_force, size_t in_force_size,
                           char *hint, size_t hint_size, int *count)
{
    int n;
    size_t closest = (size_t)-1;
    hint[0] = in_force[0] = '\0';
    *count = 0;
    if (!started || MPI_T_cvar_get_num(&n) != MPI_SUCCESS)
        return CVAR_UNREADABLE;
    *count = n;
    for (int i = 0; i < n; i++) {
        struct variable v;
        int name_len = sizeof(v.name), desc_len = 0, verbosity, bind, scope;
        MPI_Datatype type;
        if (MPI_T_cvar_get_info(i, v.name, &name_len, &verbosity, &type, &v.enumtype, NULL, &desc_len,
                                &bind, &scope) != MPI_SUCCESS)
            continue;
        if (strcmp(v.name, name) != 0) {
            size_t d = closest_name_distance(name, v.name);
            if (d < closest) {
                closest = d;
                snprintf(hint, hint_size, "%s", v.name);
            }
            continue;
        }
        hint[0] = '\0';
        if (read_variable(i, &v) != 0)
            return CVAR_UNREADABLE;
        snprintf(in_force, in_force_size, "%s", v.text);
        return !set || same_value(&v, set) ? CVAR_IN_FORCE : CVAR_DIFFERS;
    }
    if (!closest_name_close(name, closest))
        hint[0] = '\0';  /* nothing close enough to be a typo */
    return CVAR_UNKNOWN;
}
