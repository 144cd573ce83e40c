/* The number of '\n' bytes in a file, and whether it is its last byte:
 * analyze/output/output_files.R's check that a CSV file was written whole, without
 * R's vector of every byte compared.
 *
 * .Call("nbh_count_lines", file) returns c(newlines, last byte is '\n'
 * (1 or 0)), or NULL if the file cannot be read. */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "nbh_analyze.h"

SEXP nbh_count_lines(SEXP file_) {
    if (!isString(file_) || XLENGTH(file_) != 1) error("nbh_count_lines: a file name expected");
    int fd = open(R_ExpandFileName(translateChar(STRING_ELT(file_, 0))), O_RDONLY);
    if (fd < 0) return R_NilValue;
    char buffer[1 << 16];
    double newlines = 0;
    int last = 0;
    ssize_t got;
    while ((got = read(fd, buffer, sizeof buffer)) > 0) {
        for (const char *p = buffer, *end = buffer + got; (p = memchr(p, '\n', (size_t)(end - p))); p++) newlines++;
        last = buffer[got - 1] == '\n';
    }
    close(fd);
    if (got < 0) return R_NilValue;
    SEXP out = PROTECT(allocVector(REALSXP, 2));
    REAL(out)[0] = newlines;
    REAL(out)[1] = last;
    UNPROTECT(1);
    return out;
}
