/* Two paths swapped in one step (renameat2 with RENAME_EXCHANGE): how
 * analyze/output/output_files.R puts a new analysis in the place of an
 * earlier one, so that the folder holds one of them at every moment, even
 * if the analysis is killed (two renames leave it missing in between).
 *
 * .Call("nbh_exchange_paths", a, b) returns TRUE once swapped, FALSE where
 * the file system or kernel cannot (the caller renames twice then), or an
 * R error naming the reason. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include "nbh_analyze.h"

SEXP nbh_exchange_paths(SEXP a_, SEXP b_) {
    if (!isString(a_) || XLENGTH(a_) != 1 || !isString(b_) || XLENGTH(b_) != 1)
        error("nbh_exchange_paths: two paths expected");
    const char *a = R_ExpandFileName(translateChar(STRING_ELT(a_, 0)));
    char first[4096];
    if (snprintf(first, sizeof first, "%s", a) >= (int)sizeof first) error("nbh_exchange_paths: path too long");
    const char *b = R_ExpandFileName(translateChar(STRING_ELT(b_, 0)));
    if (renameat2(AT_FDCWD, first, AT_FDCWD, b, RENAME_EXCHANGE) == 0) return ScalarLogical(TRUE);
    if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP) return ScalarLogical(FALSE);
    error("%s", strerror(errno));
    return R_NilValue; /* not reached */
}
