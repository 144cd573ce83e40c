/* An attribute set in place, its value not copied (analyze/set_attribute.R):
 * data.table's setattr duplicates every value R may reference elsewhere --
 * every argument of an R function is one -- and so copied the round units,
 * some 100 MB at make bench's scale, when reduce_runs attached them to the
 * run medians. setAttrib copies only a value that would contain x itself.
 *
 * .Call("nbh_set_attribute", x, name, value): x with the attribute `name`
 * (a string) set to value; x itself, changed. */
#include <string.h>
#include "nbh_analyze.h"

SEXP nbh_set_attribute(SEXP x, SEXP name, SEXP value) {
    if (!isString(name) || XLENGTH(name) != 1 || STRING_ELT(name, 0) == NA_STRING) {
        error("nbh_set_attribute: the name must be one string");
    }
    const char *attribute = CHAR(STRING_ELT(name, 0));
    if (!strcmp(attribute, "names") || !strcmp(attribute, "class") || !strcmp(attribute, "dim") ||
        !strcmp(attribute, "dimnames") || !strcmp(attribute, "row.names") || !strcmp(attribute, "levels")) {
        error("nbh_set_attribute: '%s' is not for this routine (setattr checks it)", attribute);
    }
    setAttrib(x, install(attribute), value);
    return x;
}
