/* kernel/whole_output.c: a table keeps whole groups only, a document is
 * published whole and never over an existing file. A short write is made
 * with RLIMIT_FSIZE (EFBIG), as a full disk makes one with ENOSPC. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tap.h"
#include "whole_output.h"

static char *read_file(const char *path)
{
    static char buffer[8192];
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t n = fread(buffer, 1, sizeof(buffer) - 1, f);
    buffer[n] = '\0';
    fclose(f);
    return buffer;
}

void test_whole_output(void)
{
    char dir[] = "/tmp/nbh-whole-XXXXXX", path[256], doc[256], error[512];
    if (!mkdtemp(dir)) {
        CHECK(0, "whole_output: a temporary directory");
        return;
    }
    snprintf(path, sizeof(path), "%s/t.csv", dir);
    snprintf(doc, sizeof(doc), "%s/d.json", dir);

    struct table t;
    CHECK(table_create(&t, path, "id,rep\n", error, sizeof(error)) == 0, "table: created with its header");
    table_append(&t, "1,0\n", 4);
    table_append(&t, "1,1\n", 4);
    CHECK(!table_failed(&t), "table: a group appended");
    table_commit(&t);

    /* The next group hits the file size limit half way. */
    struct rlimit old, small = {.rlim_cur = 20, .rlim_max = RLIM_INFINITY};
    getrlimit(RLIMIT_FSIZE, &old);
    small.rlim_max = old.rlim_max;
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &small);
    table_append(&t, "2,0\n2,1\n2,2\n", 12);
    table_append(&t, "2,3\n", 4);
    setrlimit(RLIMIT_FSIZE, &old);
    CHECK(table_failed(&t), "table: a short write is noticed");
    int err = table_rollback(&t, error, sizeof(error));
    CHECK(err == EFBIG, "table: the rollback reports the write's errno");
    char expected[512];
    snprintf(expected, sizeof(expected), "%s: cannot write: %s", path, strerror(EFBIG));
    CHECK(strcmp(error, expected) == 0, "table: the message names the table and the reason");
    const char *text = read_file(path);
    CHECK(text && strcmp(text, "id,rep\n1,0\n1,1\n") == 0, "table: cut back to the last whole group");
    table_append(&t, "3,0\n", 4);
    table_commit(&t);
    table_close(&t);
    text = read_file(path);
    CHECK(text && strcmp(text, "id,rep\n1,0\n1,1\n3,0\n") == 0, "table: goes on after the cut");

    struct table again;
    CHECK(table_create(&again, path, "x\n", error, sizeof(error)) != 0 && strstr(error, "File exists"),
          "table: never over an existing file");

    CHECK(document_write(doc, "{}\n", 3, 1, error, sizeof(error)) == 0, "document: published");
    CHECK(document_write(doc, "[]\n", 3, 1, error, sizeof(error)) != 0 && strstr(error, "cannot create: File exists"),
          "document: exclusive publication refuses an existing file");
    text = read_file(doc);
    CHECK(text && strcmp(text, "{}\n") == 0, "document: the existing one is untouched");
    CHECK(document_write(doc, "{\"v\": 2}\n", 9, 0, error, sizeof(error)) == 0, "document: a new version replaces the kernel's own");
    text = read_file(doc);
    CHECK(text && strcmp(text, "{\"v\": 2}\n") == 0, "document: the new version is whole");
    char tmp[300];
    snprintf(tmp, sizeof(tmp), "%s.tmp", doc);
    CHECK(access(tmp, F_OK) != 0, "document: no temporary file is left");
    CHECK(output_error_is_no_space(ENOSPC) && output_error_is_no_space(EDQUOT) && !output_error_is_no_space(EACCES),
          "a full disk or quota is told from other failures");

    unlink(path);
    unlink(doc);
    rmdir(dir);
}
