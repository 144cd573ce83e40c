/* Two paths swapped in one step (renameat2 with RENAME_EXCHANGE): how
 * analyze/output/output_files.R puts a new analysis in the place of an
 * earlier one, so that the folder holds one of them at every moment, even
 * if the analysis is killed (two renames leave it missing in between).
 *
 * .Call("nbh_exchange_paths", a, b) returns TRUE once swapped, FALSE where
 * the swap cannot be had (the caller renames twice then), or an R error
 * naming the reason. It cannot be had where the kernel or the file system
 * lacks it (ENOSYS, EINVAL, ENOTSUP) or a seccomp filter refuses the system
 * call (EPERM: container runtimes' profiles that predate it). A C library
 * older than the call (glibc before 2.28 declares neither renameat2 nor
 * RENAME_EXCHANGE) gets the system call itself, or, without its number,
 * ENOSYS: the library compiles everywhere. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "nbh_analyze.h"

#if defined(RENAME_EXCHANGE)
static int exchange(const char *a, const char *b) {
    return renameat2(AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE);
}
#elif defined(SYS_renameat2)
static int exchange(const char *a, const char *b) {
    return (int)syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, 1 << 1); /* <linux/fs.h>'s RENAME_EXCHANGE */
}
#else
static int exchange(const char *a, const char *b) {
    (void)a;
    (void)b;
    errno = ENOSYS;
    return -1;
}
#endif

SEXP nbh_exchange_paths(SEXP a_, SEXP b_) {
    if (!isString(a_) || XLENGTH(a_) != 1 || !isString(b_) || XLENGTH(b_) != 1)
        error("nbh_exchange_paths: two paths expected");
    const char *a = R_ExpandFileName(translateChar(STRING_ELT(a_, 0)));
    char first[4096];
    if (snprintf(first, sizeof first, "%s", a) >= (int)sizeof first) error("nbh_exchange_paths: path too long");
    const char *b = R_ExpandFileName(translateChar(STRING_ELT(b_, 0)));
    if (exchange(first, b) == 0) return ScalarLogical(TRUE);
    if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP || errno == EPERM) return ScalarLogical(FALSE);
    error("%s", strerror(errno));
    return R_NilValue; /* not reached */
}
