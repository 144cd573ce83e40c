#include "whole_output.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int output_error_is_no_space(int err)
{
    return err == ENOSPC || err == EDQUOT;
}

static void describe(const char *path, const char *action, int err, char *error, size_t size)
{
    snprintf(error, size, "%s: cannot %s: %s%s", path, action, strerror(err),
             err == EEXIST ? " (outputs are never overwritten; choose another prefix)" : "");
}

/* Writes all of DATA at OFFSET; 0, or -1 with errno (ENOSPC for a short write). */
static int write_at(int fd, const char *data, size_t size, off_t offset)
{
    while (size > 0) {
        ssize_t n = pwrite(fd, data, size, offset);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0) {
            errno = ENOSPC;
            return -1;
        }
        data += n;
        size -= (size_t)n;
        offset += n;
    }
    return 0;
}

int table_create(struct table *t, const char *path, const char *header, char *error, size_t size)
{
    memset(t, 0, sizeof(*t));
    snprintf(t->path, sizeof(t->path), "%s", path);
    t->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (t->fd < 0) {
        int err = errno;
        describe(path, "create", err, error, size);
        errno = err;
        return -1;
    }
    table_append(t, header, strlen(header));
    if (t->error) {
        int err = t->error;
        describe(path, "write", err, error, size);
        table_discard(t);
        errno = err;
        return -1;
    }
    table_commit(t);
    return 0;
}

void table_append(struct table *t, const char *data, size_t size)
{
    if (t->fd < 0 || t->error || size == 0)
        return;
    if (write_at(t->fd, data, size, t->end) != 0) {
        t->error = errno;
        return;
    }
    t->end += (off_t)size;
}

int table_failed(const struct table *t)
{
    return t->fd >= 0 && t->error != 0;
}

void table_commit(struct table *t)
{
    t->committed = t->end;
}

int table_rollback(struct table *t, char *error, size_t size)
{
    if (t->fd < 0)
        return 0;
    int err = t->error;
    /* Shrinking a file frees space: it does not fail for want of it. */
    if (t->end != t->committed || err)
        if (ftruncate(t->fd, t->committed) != 0 && !err)
            err = errno;
    t->end = t->committed;
    t->error = 0;
    if (err)
        describe(t->path, "write", err, error, size);
    return err;
}

int table_sync(struct table *t, char *error, size_t size)
{
    if (t->fd < 0 || fsync(t->fd) == 0 || errno == EINVAL || errno == EROFS)
        return 0;
    int err = errno;
    describe(t->path, "sync", err, error, size);
    return err;
}

void table_close(struct table *t)
{
    if (t->fd >= 0)
        close(t->fd);
    t->fd = -1;
}

void table_discard(struct table *t)
{
    if (t->fd < 0)
        return;
    table_close(t);
    unlink(t->path);
}

/* fsync of PATH's directory: its new name reaches the disk. Best effort:
 * the document is whole either way, and a directory that cannot be opened
 * or synced (some shared file systems) loses nothing a kill could not. */
static void sync_directory_of(const char *path)
{
    char dir[4300];
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof(dir), ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

int document_write(const char *path, const char *data, size_t size, int exclusive, char *error,
                   size_t esize)
{
    char tmp[4300];
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        int err = errno;
        describe(path, "write", err, error, esize);
        errno = err;
        return -1;
    }
    int status = write_at(fd, data, size, 0);
    int err = errno;
    /* The data reach the disk before the name does: a power loss never
     * leaves PATH naming an empty or cut file. */
    if (status == 0 && fsync(fd) != 0 && errno != EINVAL && errno != EROFS) {
        status = -1;
        err = errno;
    }
    if (close(fd) != 0 && status == 0) {
        status = -1;
        err = errno;
    }
    if (status == 0) {
        /* link fails with EEXIST where PATH exists: exclusive, and atomic */
        status = exclusive ? link(tmp, path) : rename(tmp, path);
        err = errno;
    }
    unlink(tmp);
    if (status != 0) {
        describe(path, exclusive && err == EEXIST ? "create" : "write", err, error, esize);
        errno = err;
        return -1;
    }
    sync_directory_of(path);
    return 0;
}
