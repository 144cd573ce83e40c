/* An LD_PRELOAD library for the durability tests (tests/sync_log.py): it
 * logs, in order, every fsync and syncfs (with the path of its descriptor)
 * and every rename, renameat2 and link (with both paths) of the process to the file
 * named by NBH_TEST_SYNC_LOG, one line each, then does the call. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void log_line(const char *what, const char *a, const char *b)
{
    const char *file = getenv("NBH_TEST_SYNC_LOG");
    if (!file)
        return;
    char line[8400];
    int n = snprintf(line, sizeof(line), "%s %s%s%s\n", what, a, b ? " " : "", b ? b : "");
    int fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (n > 0 && write(fd, line, (size_t)n) < 0)
        n = 0;
    close(fd);
}

static void log_fd(const char *what, int fd)
{
    char link[64], path[4096];
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    ssize_t n = readlink(link, path, sizeof(path) - 1);
    path[n > 0 ? n : 0] = '\0';
    log_line(what, path, NULL);
}

int fsync(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    log_fd("fsync", fd);
    return real(fd);
}

int syncfs(int fd)
{
    static int (*real)(int);
    if (!real)
        real = (int (*)(int))dlsym(RTLD_NEXT, "syncfs");
    log_fd("syncfs", fd);
    return real(fd);
}

int rename(const char *a, const char *b)
{
    static int (*real)(const char *, const char *);
    if (!real)
        real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
    log_line("rename", a, b);
    return real(a, b);
}

int renameat2(int da, const char *a, int db, const char *b, unsigned int flags)
{
    static int (*real)(int, const char *, int, const char *, unsigned int);
    if (!real)
        real = (int (*)(int, const char *, int, const char *, unsigned int))dlsym(RTLD_NEXT, "renameat2");
    log_line("rename", a, b);
    return real(da, a, db, b, flags);
}

int link(const char *a, const char *b)
{
    static int (*real)(const char *, const char *);
    if (!real)
        real = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "link");
    log_line("link", a, b);
    return real(a, b);
}
