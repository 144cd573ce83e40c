/* What an analysis wrote, flushed to the disk: what
 * analyze/output/output_files.R asks before it swaps a new analysis into
 * place (the staged tree: the file system it is on, syncfs) and after (the
 * parent directory, which holds the new name: fsync), so that a machine
 * that loses power after analyze ended finds the analysis whole, not names
 * of empty files. One syncfs of the file system, not an fsync per file:
 * 300 files of 20 KB took 1.4-2.0 s one by one and 0.06-0.21 s together
 * here (2026-11-29, load average 21).
 *
 * .Call("nbh_sync_file_system", path): TRUE, FALSE where the kernel has no
 * syncfs (ENOSYS: the caller fsyncs each file), or an R error naming the
 * path and the reason.
 * .Call("nbh_sync_paths", paths): fsync of each; TRUE, or an R error. A
 * file system that cannot sync (EINVAL, EROFS) is not an error: there is
 * nothing to flush. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "nbh_analyze.h"

static const char *path_of(SEXP paths, R_xlen_t i) {
    return R_ExpandFileName(translateChar(STRING_ELT(paths, i)));
}

SEXP nbh_sync_file_system(SEXP path_) {
    if (!isString(path_) || XLENGTH(path_) != 1) error("nbh_sync_file_system: one path expected");
    const char *path = path_of(path_, 0);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) error("%s: %s", path, strerror(errno));
    int failed = syncfs(fd) != 0;
    int err = errno;
    close(fd);
    if (failed && err == ENOSYS) return ScalarLogical(FALSE);
    if (failed && err != EINVAL && err != EROFS) error("%s: %s", path, strerror(err));
    return ScalarLogical(TRUE);
}

SEXP nbh_sync_paths(SEXP paths) {
    if (!isString(paths)) error("nbh_sync_paths: paths expected");
    for (R_xlen_t i = 0; i < XLENGTH(paths); i++) {
        const char *path = path_of(paths, i);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) error("%s: %s", path, strerror(errno));
        int failed = fsync(fd) != 0 && errno != EINVAL && errno != EROFS;
        int err = errno;
        close(fd);
        if (failed) error("%s: %s", path, strerror(err));
    }
    return ScalarLogical(TRUE);
}
