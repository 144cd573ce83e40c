/* Files and directories flushed to the disk (fsync): what
 * analyze/output/output_files.R asks before it swaps a new analysis into
 * place (every staged file and directory) and after (the parent
 * directory, which holds the new name), so that a machine that loses power
 * after analyze ended finds the analysis whole, not names of empty files.
 *
 * .Call("nbh_sync_paths", paths) returns TRUE, or an R error naming the
 * path and the reason. A file system that cannot sync (EINVAL, EROFS) is
 * not an error: there is nothing to flush. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include "nbh_analyze.h"

SEXP nbh_sync_paths(SEXP paths) {
    if (!isString(paths)) error("nbh_sync_paths: paths expected");
    for (R_xlen_t i = 0; i < XLENGTH(paths); i++) {
        const char *path = R_ExpandFileName(translateChar(STRING_ELT(paths, i)));
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) error("%s: %s", path, strerror(errno));
        int failed = fsync(fd) != 0 && errno != EINVAL && errno != EROFS;
        int err = errno;
        close(fd);
        if (failed) error("%s: %s", path, strerror(err));
    }
    return ScalarLogical(TRUE);
}
