#include "operations_report.h"

#include "setups/setup.h"

static void csv_text(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', out);
        fputc(*s, out);
    }
    fputc('"', out);
}

int operations_report(FILE *out)
{
    fputs("name,available,note\n", out);
    for (int op = 0; op < N_OPERATIONS; op++) {
        const char *unavailable = setup_unavailable((enum operation)op);
        fprintf(out, "%s,%d,", operation_table[op].name, unavailable == NULL);
        if (unavailable)
            csv_text(out, unavailable);
        else if (operation_table[op].persistent)
            csv_text(out, persistent_collectives_names());
        fputc('\n', out);
    }
    return fflush(out) == 0 ? 0 : 1;
}
